#include "sim/transport/sharp/aggregation_node.h"

#include <algorithm>
#include <cmath>

#include "sim/core/error.h"
#include "sim/network/switch.h"
#include "sim/transport/q_key.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

namespace {

std::uint64_t endpoint_key(Lid lid, Qpn qpn) { return (std::uint64_t{lid} << 32) | qpn; }

}  // namespace

AggregationNode::AggregationNode(Switch& sw, AggregationNodeConfig config)
    : sw_(sw), config_(config), slots_(std::max<std::uint32_t>(config.max_operations, 1)) {
  sw_.management_port().set_aggregation_agent(this);
}

std::string AggregationNode::name() const { return std::string(sw_.name()) + "/aggregation"; }

void AggregationNode::configure(const AggregationGroupSetup& g) {
  // A resent TreeConfig (its answer was late or lost) leaves the tree and its operations as they are.
  if (const auto held = groups_.find(g.tree); held != groups_.end() && held->second.setup == g) return;
  Group group;
  group.setup = g;
  for (std::uint32_t i = 0; i < g.children.size(); ++i)
    group.child_of[endpoint_key(g.children[i].lid, g.children[i].qpn)] = i;
  groups_[g.tree] = std::move(group);
}

void AggregationNode::consume(Packet* p) {
  sw_.ledger().delivered();
  sw_.pool().release(p);
}

bool AggregationNode::take(Packet* p, PortNum) {
  const auto ud = parse_ud_send(*p);
  if (ud && ud->bth.dest_qp == 1) return take_mad(p);
  if (!ud || ud->bth.dest_qp != kAggregationQpn || ud->deth.q_key != kSharpQKey || !ud->imm) return false;
  const std::uint32_t key = *ud->imm;
  const auto g = groups_.find(static_cast<std::uint8_t>(key >> 24));
  if (g == groups_.end()) return false;
  const AggregationGroupSetup& setup = g->second.setup;
  if (setup.parent && ud->lrh.slid == *setup.parent && ud->deth.src_qp == kAggregationQpn) {
    // The result, from the parent: on to the children.
    sw_.schedule<&AggregationNode::pass_down>(ScheduledModule::now() + config_.latency, this, p);
    return true;
  }
  if (!g->second.child_of.count(endpoint_key(ud->lrh.slid, ud->deth.src_qp))) return false;
  IBFSIM_CHECK(p->payload_len <= config_.buffer_bytes, "SHARP: a chunk longer than the aggregation node's buffer");
  if (const auto s = slot_of_.find(key); s != slot_of_.end()) {
    absorb(p, s->second);
    return true;
  }
  const auto slot = free_slot();
  if (!waiting_.empty() || !slot) {
    if (!waiting_since_.count(key)) {
      waiting_since_[key] = ScheduledModule::now();
      ++stats_.waited;
    }
    waiting_.push_back({p, key});
    return true;
  }
  Op& op = slots_[*slot];
  op = Op{};
  op.used = true;
  op.key = key;
  op.got.assign(setup.children.size(), 0);
  slot_of_[key] = *slot;
  stats_.most_active = std::max(stats_.most_active, ++active_);
  absorb(p, *slot);
  return true;
}

bool AggregationNode::take_mad(Packet* p) {
  // Only a GMP of the SHARP class (kGsiQKey, a whole 256-byte MAD) is the node's; the rest (CC
  // MADs, ...) is the SMA's.
  const auto ud = parse_ud_send(*p);
  if (ud->deth.q_key != kGsiQKey || ud->imm || p->payload_len != kSharpMadBytes || p->payload.size() != kSharpMadBytes ||
      p->payload[1] != kSharpMadClass)
    return false;
  PendingMad m;
  m.mad.assign(p->payload.begin(), p->payload.end());
  m.slid = ud->lrh.slid;
  m.src_qp = ud->deth.src_qp;
  m.sl = ud->lrh.sl;
  m.p_key = ud->bth.p_key;
  sw_.ledger().management_delivered();
  sw_.pool().release(p);
  mads_.push_back(std::move(m));
  mad_free_ = std::max(mad_free_, ScheduledModule::now()) + config_.mad_latency;
  sw_.schedule<&AggregationNode::mad_served>(mad_free_, this);
  return true;
}

// A later page sent again (its answer was late or lost) after the tree was complete: the same
// children at the same places.
bool AggregationNode::resends_held_page(const SharpTreeConfigMad& m) const {
  const auto& children = groups_.at(m.tree).setup.children;
  if (m.first_child + m.children.size() > children.size()) return false;
  for (std::size_t i = 0; i < m.children.size(); ++i)
    if (!(children[m.first_child + i] == AggregationEndpoint{m.children[i].lid, m.children[i].qpn})) return false;
  return true;
}

std::uint16_t AggregationNode::apply_mad(const SharpTreeConfigMad& m) {
  const bool held = groups_.count(m.tree) != 0;
  if (m.page == 0) {
    if (!held && groups_.size() >= config_.max_trees) {
      ++stats_.trees_refused;
      partial_.erase(m.tree);
      return kSharpStatusNoTree;
    }
    AggregationGroupSetup g;
    g.tree = m.tree;
    g.op = m.op;
    g.type = m.type;
    g.sl = m.sl;
    g.p_key = m.p_key;
    if (m.parent != 0) g.parent = m.parent;
    partial_[m.tree] = g;
  }
  auto it = partial_.find(m.tree);
  if (it == partial_.end() && held && resends_held_page(m)) return 0;
  if (it == partial_.end() || it->second.children.size() != m.first_child) return 0x001C;  // a page out of order
  for (const SharpTreeConfigMad::Child& c : m.children) it->second.children.push_back({c.lid, c.qpn});
  if (it->second.children.size() == m.total_children) {
    configure(it->second);
    partial_.erase(it);
  }
  return 0;
}

void AggregationNode::mad_served() {
  const PendingMad pm = std::move(mads_.front());
  mads_.pop_front();
  const auto m = decode_sharp_mad(pm.mad.data());
  SharpMadBytes answer{};
  std::copy(pm.mad.begin(), pm.mad.end(), answer.begin());
  // GetResp (R bit), the request's data back with the status (0x001C: a MAD that makes no sense).
  answer[3] = 0x81;
  const std::uint16_t status = m && m->method == 0x02 ? apply_mad(*m) : std::uint16_t{0x001C};
  answer[4] = static_cast<std::uint8_t>(status >> 8);
  answer[5] = static_cast<std::uint8_t>(status);
  ++stats_.mads_answered;
  const PortNum out = sw_.lft().lookup(pm.slid);
  if (out < 1 || out > sw_.num_ports()) {
    ++stats_.lost;
    return;
  }
  Packet* p = sw_.pool().acquire();
  UdSendFields f;
  f.sl = pm.sl;
  f.vl = sw_.sl_to_vl_table(out, out).vl(pm.sl);
  f.dlid = pm.slid;
  f.slid = sw_.lid();
  f.p_key = pm.p_key;
  f.dest_qp = pm.src_qp;
  f.q_key = kGsiQKey;
  f.src_qp = 1;
  build_ud_send(*p, f, kSharpMadBytes, answer.data());
  p->management = true;
  p->created = ScheduledModule::now();
  sw_.ledger().management_created();
  sw_.send_gsi(out, p);
}

std::optional<std::uint32_t> AggregationNode::free_slot() const {
  for (std::uint32_t i = 0; i < slots_.size(); ++i)
    if (!slots_[i].used) return i;
  return std::nullopt;
}

void AggregationNode::absorb(Packet* p, std::uint32_t slot) {
  Op& op = slots_[slot];
  const Group& g = groups_.at(static_cast<std::uint8_t>(op.key >> 24));
  const auto ud = parse_ud_send(*p);
  const std::uint32_t child = g.child_of.at(endpoint_key(ud->lrh.slid, ud->deth.src_qp));
  IBFSIM_CHECK(!op.got[child], "SHARP: a child sent the same operation twice");
  op.got[child] = 1;
  ++stats_.chunks_in;
  if (op.have == 0) {
    op.bytes = p->payload_len;
    op.carried = !p->payload.empty() && p->payload_len > 0;
    if (op.carried) op.acc.assign(p->payload.begin(), p->payload.begin() + p->payload_len);
  } else {
    IBFSIM_CHECK(p->payload_len == op.bytes, "SHARP: the children's chunks of an operation differ in length");
    if (op.carried && !p->payload.empty())
      sharp_reduce(g.setup.op, g.setup.type, op.acc.data(), p->payload.data(), op.bytes);
    else {
      op.carried = false;
      op.acc.clear();
    }
  }
  consume(p);
  if (++op.have < op.got.size()) return;
  // Every chunk is in: the ALU reduces it, then the result leaves after the latency.
  const Time start = std::max(ScheduledModule::now(), alu_free_);
  const Time busy = config_.bandwidth_gbps > 0
                        ? static_cast<Time>(std::ceil(static_cast<double>(op.bytes) * 1e6 / config_.bandwidth_gbps))
                        : 0;
  alu_free_ = start + busy;
  ++stats_.operations;
  sw_.schedule<&AggregationNode::result_ready>(alu_free_ + config_.latency, this, SlotRef{slot});
}

void AggregationNode::result_ready(SlotRef r) {
  Op& op = slots_[r.slot];
  const Group& g = groups_.at(static_cast<std::uint8_t>(op.key >> 24));
  const std::vector<std::uint8_t>* payload = op.carried ? &op.acc : nullptr;
  if (g.setup.parent) {
    send(g, op.key, {*g.setup.parent, kAggregationQpn}, op.bytes, payload);
    ++stats_.results_up;
  } else {
    for (const AggregationEndpoint& c : g.setup.children) send(g, op.key, c, op.bytes, payload);
    stats_.results_down += g.setup.children.size();
  }
  slot_of_.erase(op.key);
  op = Op{};
  --active_;
  drain_waiting();
}

void AggregationNode::pass_down(Packet* p) {
  const auto ud = parse_ud_send(*p);
  const std::uint32_t key = *ud->imm;
  const Group& g = groups_.at(static_cast<std::uint8_t>(key >> 24));
  std::vector<std::uint8_t> bytes;
  if (!p->payload.empty()) bytes.assign(p->payload.begin(), p->payload.begin() + p->payload_len);
  for (const AggregationEndpoint& c : g.setup.children)
    send(g, key, c, p->payload_len, p->payload.empty() ? nullptr : &bytes);
  stats_.results_down += g.setup.children.size();
  consume(p);
}

void AggregationNode::drain_waiting() {
  while (!waiting_.empty()) {
    const Waiting w = waiting_.front();
    auto s = slot_of_.find(w.key);
    if (s == slot_of_.end()) {
      const auto slot = free_slot();
      if (!slot) return;
      const auto since = waiting_since_.find(w.key);
      stats_.wait_time += ScheduledModule::now() - since->second;
      waiting_since_.erase(since);
      Op& op = slots_[*slot];
      op = Op{};
      op.used = true;
      op.key = w.key;
      op.got.assign(groups_.at(static_cast<std::uint8_t>(w.key >> 24)).setup.children.size(), 0);
      s = slot_of_.emplace(w.key, *slot).first;
      stats_.most_active = std::max(stats_.most_active, ++active_);
    }
    waiting_.pop_front();
    absorb(w.p, s->second);
  }
}

void AggregationNode::send(const Group& g, std::uint32_t key, AggregationEndpoint to, std::uint32_t bytes,
                           const std::vector<std::uint8_t>* payload) {
  const PortNum out = sw_.lft().lookup(to.lid);
  Packet* p = sw_.pool().acquire();
  UdSendFields f;
  f.sl = g.setup.sl;
  f.vl = out >= 1 && out <= sw_.num_ports() ? sw_.sl_to_vl_table(out, out).vl(g.setup.sl) : 0;
  f.dlid = to.lid;
  f.slid = sw_.lid();
  f.p_key = g.setup.p_key;
  f.dest_qp = to.qpn;
  f.q_key = kSharpQKey;
  f.src_qp = kAggregationQpn;
  f.imm = key;
  build_ud_send(*p, f, bytes, payload ? payload->data() : nullptr);
  p->created = ScheduledModule::now();
  p->src_qp = kAggregationQpn;
  sw_.ledger().created();
  sw_.ledger().injected();
  if (out < 1 || out > sw_.num_ports() || !sw_.port(out).connected() || sw_.port(out).state() == PortState::kDown) {
    // No way there (no route, or the port went down): lost, as a data packet.
    ++stats_.lost;
    sw_.ledger().dropped(DropReason::kLinkDown, false);
    sw_.pool().release(p);
    return;
  }
  sw_.send_gsi(out, p);
}

}  // namespace ibfsim
