#include "sim/workload/rogue_smps.h"

#include <fmt/format.h>

#include <deque>

#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/linear_forwarding_table.h"
#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/port_info.h"

namespace ibfsim {

namespace {
constexpr std::uint64_t kTids = 0xA77AC0000000ull;  // the attacker's transaction IDs
}  // namespace

std::vector<PortNum> directed_route(const Topology& topo, std::size_t from, std::size_t to) {
  const auto cables = topo.port_cables();
  // Breadth first from the HCA's port 1; `via[n]`: the node it was reached from and by which port.
  std::vector<std::optional<std::pair<std::size_t, PortNum>>> via(topo.nodes.size());
  std::deque<std::size_t> queue;
  if (!cables[from][1]) return {};
  const std::size_t first = topo.cables[*cables[from][1]].far_end(from).node;
  via[first] = {from, 1};
  queue.push_back(first);
  while (!queue.empty()) {
    const std::size_t n = queue.front();
    queue.pop_front();
    if (n == to) break;
    if (topo.nodes[n].type != NodeType::kSwitch) continue;  // a directed route passes switches only
    for (unsigned p = 1; p <= topo.nodes[n].num_ports; ++p) {
      if (!cables[n][p]) continue;
      const std::size_t next = topo.cables[*cables[n][p]].far_end(n).node;
      if (next == from || via[next]) continue;
      via[next] = {n, static_cast<PortNum>(p)};
      queue.push_back(next);
    }
  }
  if (!via[to]) return {};
  std::vector<PortNum> path;
  for (std::size_t n = to; n != from; n = via[n]->first) path.insert(path.begin(), via[n]->second);
  return path;
}

RogueSmps::RogueSmps(const AttackSpec& spec, HcaSma& attacker, std::vector<Target> targets, VerbsFlowOwner* owner)
    : Attack(spec), attacker_(attacker), targets_(std::move(targets)), owner_(owner) {}

void RogueSmps::setup(Time begin) {
  for (const Target& t : targets_) before_.push_back(t.sma->stats());
  attacker_.module().schedule<&RogueSmps::smp_due>(begin, this);
}

Smp RogueSmps::next_smp() const {
  const std::uint64_t tid = kTids + sent_;
  const Target& t = targets_[sent_ % targets_.size()];
  if (spec_.kind == AttackKind::kSmpFlood)
    return make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, tid, t.path, spec_.m_key);
  if ((sent_ / targets_.size()) % 2 == 0) {
    Smp s = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_LIN_FWD_TBL, 0, tid, t.path, spec_.m_key);
    LinearForwardingTableBlock block;
    block.ports.fill(kHijackPort);
    s.data = encode_linear_forwarding_table(block);
    return s;
  }
  Smp s = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, tid, t.path, spec_.m_key);
  PortInfo pi;
  pi.lid = kHijackLid;
  pi.m_key = spec_.m_key;
  pi.port_state = IB_LINK_NO_CHANGE;
  pi.port_physical_state = IB_PORT_PHYS_STATE_NO_CHANGE;
  s.data = encode_port_info(pi);
  return s;
}

void RogueSmps::smp_due() {
  // Back to back: every SMP of this instant, the port's SMP queue sends them one after another.
  do {
    attacker_.send_from_sm(next_smp(), 1);
    ++sent_;
  } while (!done() && spec_.interval == 0);
  if (!done()) attacker_.module().schedule<&RogueSmps::smp_due>(ScheduledModule::now() + spec_.interval, this);
  else if (owner_) owner_->flow_progress();
}

std::vector<AttackTargetFacts> RogueSmps::targets() const {
  std::vector<AttackTargetFacts> out;
  for (std::size_t i = 0; i < targets_.size(); ++i) {
    const Target& t = targets_[i];
    const SmaStats& now = t.sma->stats();
    const SmaState& st = t.sma->state();
    AttackTargetFacts f{spec_.name, t.name, {t.path.begin(), t.path.end()}, now.processed - before_[i].processed,
                        now.overflowed - before_[i].overflowed, now.m_key_violations - before_[i].m_key_violations, {}};
    if (spec_.kind == AttackKind::kRogueSmp) {
      // Whether anything the attacker wrote is in place: the switch's LID, or LFT block 0 all port 1.
      bool hijacked_block = st.lft.size() >= kLftBlockEntries;
      for (std::size_t l = 0; hijacked_block && l < kLftBlockEntries; ++l) hijacked_block = st.lft[l] == kHijackPort;
      f.hijack_in_place = st.ports[0].info.lid == kHijackLid || hijacked_block;
    }
    out.push_back(std::move(f));
  }
  return out;
}

nlohmann::json RogueSmps::results() const {
  nlohmann::json j = common_results();
  j["packets_sent"] = sent_;
  if (spec_.kind == AttackKind::kRogueSmp) j["m_key"] = spec_.m_key;
  // Totals over the target switches; each one's figures are in attack_targets.csv.
  std::uint64_t processed = 0, overflowed = 0, refused = 0, hijacked = 0;
  for (const AttackTargetFacts& t : targets()) {
    processed += t.smps_processed;
    overflowed += t.smps_overflowed;
    refused += t.m_key_refused;
    hijacked += t.hijack_in_place.value_or(false) ? 1 : 0;
  }
  j["target_switches"] = targets_.size();
  j["smps_processed"] = processed;
  j["smps_overflowed"] = overflowed;
  j["m_key_refused"] = refused;
  if (spec_.kind == AttackKind::kRogueSmp) j["hijacks_in_place"] = hijacked;
  return j;
}

std::string RogueSmps::summary() const {
  std::uint64_t refused = 0;
  for (std::size_t i = 0; i < targets_.size(); ++i) refused += targets_[i].sma->stats().m_key_violations - before_[i].m_key_violations;
  return fmt::format("attack {} ({} from {}): {} SMPs sent to {} switch{}, {} refused for their M_Key", spec_.name,
                     attack_kind_name(spec_.kind), spec_.from, sent_, targets_.size(), targets_.size() == 1 ? "" : "es",
                     refused);
}

}  // namespace ibfsim
