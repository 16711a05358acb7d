#include "sim/network/switch.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/link/vcrc.h"
#include "sim/network/fecn_marker.h"
#include "sim/network/lrh.h"

namespace ibfsim {

Time lifetime_from_code(unsigned code) {
  if (code >= 20) return kTimeNever;
  return static_cast<Time>(4096) * kNs * (Time{1} << code);  // 4.096 us x 2^code
}

Switch::Switch(const sc_core::sc_module_name& name, SwitchConfig config, PacketPool& pool, PacketLedger& ledger)
    : ScheduledModule(name), config_(std::move(config)), pool_(pool), ledger_(ledger),
      life_time_(lifetime_from_code(config_.life_time_code)),
      hoq_life_(config_.num_ports, lifetime_from_code(config_.hoq_life_code)),
      out_mtu_(config_.num_ports, config_.mtu),
      default_sl_to_vl_(SlToVlTable::identity_modulo(config_.buffers.op_vls)) {
  if (config_.vl_arbitration.high.empty() && config_.vl_arbitration.low.empty())
    config_.vl_arbitration = default_vl_arbitration(config_.buffers.op_vls);
  for (unsigned i = 1; i <= config_.num_ports; ++i) {
    ports_.push_back(std::make_unique<LinkPort>(*this, *this, static_cast<PortNum>(i), config_.buffers,
                                                std::string(this->name()) + "/" + std::to_string(i)));
    ports_.back()->set_activate_on_data(true);
  }
  inputs_.resize(config_.num_ports);
  for (unsigned i = 1; i <= config_.num_ports; ++i)
    outputs_.push_back(std::make_unique<Output>(*this, static_cast<PortNum>(i), config_.vl_arbitration));
  discards_.resize(config_.num_ports);
}

const SlToVlTable& Switch::sl_to_vl(PortNum in, PortNum out) const {
  if (config_.sl_to_vl.empty()) return default_sl_to_vl_;
  return config_.sl_to_vl[in][out];
}

void Switch::count_discard(PortNum port, DropReason reason, const Packet& p) {
  ++discards_[port - 1][static_cast<int>(reason)];
  ++stats_.discarded;
  ledger_.dropped(reason, counts_as_management(p));
}

void Switch::set_sl_to_vl(PortNum in, PortNum out, const SlToVlTable& table) {
  if (config_.sl_to_vl.empty())
    config_.sl_to_vl.assign(config_.num_ports + 1, std::vector<SlToVlTable>(config_.num_ports + 1, default_sl_to_vl_));
  config_.sl_to_vl.at(in).at(out) = table;
}

void Switch::set_vl_arbitration(PortNum out, const VlArbConfig& config) {
  outputs_.at(out - 1)->stage.set_vl_arbitration(config);
}

void Switch::send_management(PortNum out, Packet* p) {
  IBFSIM_CHECK(is_management_packet(*p), "the management port sends only VL15 packets");
  if (out == 0 || out > ports_.size() || !ports_[out - 1]->connected() || ports_[out - 1]->state() == PortState::kDown) {
    if (out >= 1 && out <= ports_.size()) ++discards_[out - 1][static_cast<int>(DropReason::kLinkDown)];
    ++stats_.discarded;
    ledger_.dropped(DropReason::kLinkDown, true);
    pool_.release(p);
    return;
  }
  outputs_[out - 1]->stage.send_management(p);
}

void Switch::send_gsi(PortNum out, Packet* p) {
  IBFSIM_CHECK((p->header[0] >> 4) != kVl15, "GMPs travel on data VLs");
  if (out == 0 || out > ports_.size() || !ports_[out - 1]->connected() || ports_[out - 1]->state() == PortState::kDown) {
    if (out >= 1 && out <= ports_.size()) ++discards_[out - 1][static_cast<int>(DropReason::kLinkDown)];
    ++stats_.discarded;
    ledger_.dropped(DropReason::kLinkDown, true);
    pool_.release(p);
    return;
  }
  outputs_[out - 1]->stage.send_gsi(p);
}

void Switch::management_arrives(Packet* p, TailDiscard where) {
  const PortNum in = where.in;
  const bool check = where.check;
  const std::uint32_t blocks = credits_for_bytes(p->wire_bytes());
  const std::uint8_t vl = p->header[0] >> 4;  // VL15 (an SMP) or a data VL (a GMP)
  if (check)
    if (auto bad = ports_[in - 1]->check_tail(p->link_seq, p)) {
      count_discard(in, *bad, *p);
      ports_[in - 1]->free_rx(vl, blocks);
      pool_.release(p);
      return;
    }
  ports_[in - 1]->free_rx(vl, blocks);
  if (!agent_) {
    count_discard(in, DropReason::kNoQp, *p);
    pool_.release(p);
    return;
  }
  agent_->on_management_packet(p, in);
}

void Switch::on_port_state_change(LinkPort& port) {
  if (agent_) agent_->on_port_state_change(port.number());
}

void Switch::schedule_discard_at_tail(PortNum in, Packet* p, Time tail, DropReason reason, bool check) {
  schedule<&Switch::discard_at_tail>(tail, this, p, TailDiscard{in, reason, check});
}

void Switch::on_link_discard(LinkPort& port, Packet* p, DropReason reason) {
  count_discard(port.number(), reason, *p);
  pool_.release(p);
}

void Switch::on_packet_head(LinkPort& port, Packet* p, Time head, Time tail) {
  const PortNum in = port.number();
  const std::uint8_t* lrh = p->header.data();
  const std::uint8_t vl_in = lrh_vl(lrh);
  // Whether the packet is good (VCRC, R11; PHY errors; EBP) is known at its tail: it is routed on
  // the header as sent meanwhile, and checked then (tail_check) if it can be bad at all.
  const bool check = port.tail_check_needed(*p);
  auto discard = [&](DropReason r) { schedule_discard_at_tail(in, p, tail, r, check); };
  if ((lrh[0] & 0x0F) != 0) return discard(DropReason::kMalformed);  // LVer (R8)
  const Lid dlid = lrh_dlid(lrh);
  // R13: DLID 0 is never valid; the SLID is unicast, or permissive in a directed-route SMP.
  const Lid slid = load_be16(lrh + 6);
  if (dlid == kLidReserved || !(is_unicast_lid(slid) || (slid == kLidPermissive && vl_in == kVl15)))
    return discard(DropReason::kInvalidLid);
  if (vl_in == kVl15 && (dlid == kLidPermissive || is_own_lid(dlid))) {
    // For the management port: it takes the packet whole, at its tail.
    schedule<&Switch::management_arrives>(tail, this, p, TailDiscard{in, DropReason::kCount, check});
    return;
  }
  if (vl_in != kVl15 && is_own_lid(dlid)) {
    // A GMP to the switch itself (QP1 behind management port 0), also taken whole at its tail.
    schedule<&Switch::management_arrives>(tail, this, p, TailDiscard{in, DropReason::kCount, check});
    return;
  }
  if (is_multicast_lid(dlid)) {
    const std::vector<PortNum>* ports = config_.mft.lookup(dlid);
    std::uint16_t copies = 0;
    if (ports)
      for (PortNum o : *ports)
        if (o != in && o >= 1 && o <= ports_.size() && ports_[o - 1]->connected()) ++copies;
    if (copies == 0 || vl_in == kVl15) return discard(DropReason::kUnknownDlid);
    if (p->payload_len > config_.mtu) return discard(DropReason::kMtuExceeded);
    auto& q = inputs_[in - 1][vl_in];
    Entry e{p, head, tail, 0, 0, credits_for_bytes(p->wire_bytes()), false, false, next_serial_++};
    e.mcast = ports;
    e.copies_left = copies;
    e.check = check;
    e.in_seq = p->link_seq;
    q.push_back(e);
    if (check) schedule<&Switch::tail_arrives>(tail, this, EntryRef{e.serial, in, vl_in, 0});
    if (q.size() == 1) consider_head(in, vl_in);
    return;
  }
  const PortNum out = config_.lft.lookup(dlid);
  if (out == kNoRoute || out == 0 || out > ports_.size() || !ports_[out - 1]->connected())
    return discard(DropReason::kUnknownDlid);
  std::uint8_t out_vl = kVl15;
  if (vl_in != kVl15) {
    out_vl = sl_to_vl(in, out).vl(lrh_sl(lrh));
    if (out_vl == kVl15 || out_vl >= ports_[out - 1]->op_vls()) return discard(DropReason::kSlToVlDrop);
  }
  if (p->payload_len > out_mtu_[out - 1]) return discard(DropReason::kMtuExceeded);
  auto& q = inputs_[in - 1][vl_in];
  Entry e{p, head, tail, out, out_vl, credits_for_bytes(p->wire_bytes()), false, false, next_serial_++};
  e.check = check;
  e.in_seq = p->link_seq;
  if (cc_) e.fecn = cc_->arrive(out, out_vl, e.blocks);
  q.push_back(e);
  if (check) schedule<&Switch::tail_arrives>(tail, this, EntryRef{e.serial, in, vl_in, 0});
  if (q.size() == 1) consider_head(in, vl_in);
}

void Switch::tail_check(PortNum in, std::uint8_t vl, std::uint64_t serial) {
  auto& q = inputs_[in - 1][vl];
  std::size_t i = 0;
  while (i < q.size() && q.at(i).serial != serial) ++i;
  if (i == q.size()) return;  // discarded before its tail (lifetime, link down)
  Entry& e = q.at(i);
  e.tail_checked = true;
  // Once a packet (or a copy) is on an output, it belongs to the next hop: only its number is used.
  const auto bad = ports_[in - 1]->check_tail(e.in_seq, e.granted ? nullptr : e.p);
  if (!bad) return;
  if (!e.granted) return drop_queued(in, vl, i, *bad);
  if (!e.mcast) return ports_[e.out - 1]->stomp(e.out_seq);
  // A multicast packet (at the head of its queue, since a copy started): stomp the copies on the
  // wire, make no more. The original retires when the copies on the wire are done.
  e.bad = true;
  e.copies_left = 0;
  const auto r = static_cast<Requester>((in << 4) | vl);
  for (PortNum o : *e.mcast) {
    if (o == in || o < 1 || o > ports_.size()) continue;
    if (outputs_[o - 1]->sending == r) ports_[o - 1]->stomp(outputs_[o - 1]->sending_seq);
    withdraw(o, r);
  }
  if (e.copies_active == 0) retire_multicast(in, vl);
}

void Switch::withdraw(PortNum out, std::uint16_t r) {
  Output& o = *outputs_[out - 1];
  for (std::uint16_t m = o.waiting; m; m &= static_cast<std::uint16_t>(m - 1)) {
    const unsigned v = static_cast<unsigned>(__builtin_ctz(m));
    auto& reqs = o.requesters[v];
    reqs.erase(std::remove(reqs.begin(), reqs.end(), r), reqs.end());
    clear_if_idle(o, v);
  }
}

void Switch::drop_queued(PortNum in, std::uint8_t vl, std::size_t i, DropReason reason) {
  auto& q = inputs_[in - 1][vl];
  const Entry e = q.at(i);
  const auto r = static_cast<Requester>((in << 4) | vl);
  if (e.requesting) withdraw(e.out, r);
  if (e.mcast && i == 0)
    for (PortNum o : *e.mcast)
      if (o != in && o >= 1 && o <= ports_.size()) withdraw(o, r);
  count_discard(in, reason, *e.p);
  q.erase(i);
  if (cc_ && !e.mcast) cc_->dequeued(e.out, e.out_vl, e.blocks);
  ports_[in - 1]->free_rx(vl, e.blocks);
  pool_.release(e.p);
  if (i == 0 && !q.empty()) consider_head(in, vl);
}

// The cut-through rule: the first edge of the output's clock at or after now with
// time >= head + latency and time + s_out >= tail + latency.
Time Switch::eligible_time(const Entry& e, PortNum out) const {
  const LinkPort& o = *ports_[out - 1];
  const SymbolClock& clk = o.clock();
  const std::uint64_t s_out = o.symbols_for(e.p->wire_bytes());
  std::uint64_t c = std::max(clk.cycle_at_or_after(e.head + config_.latency), clk.cycle_at_or_after(now()));
  const std::uint64_t c_tail = clk.cycle_at_or_after(e.tail + config_.latency);
  if (c_tail > s_out) c = std::max(c, c_tail - s_out);
  return clk.time_of(c);
}

void Switch::consider_head(PortNum in, std::uint8_t vl) {
  const Entry& e = inputs_[in - 1][vl].front();
  if (e.mcast) {
    // Each copy becomes eligible on its own output's clock; lifetimes are not applied to copies.
    for (PortNum o : *e.mcast)
      if (o != in && o >= 1 && o <= ports_.size() && ports_[o - 1]->connected()) schedule_request(in, vl, o);
    return;
  }
  const Time eligible = eligible_time(e, e.out);
  const EntryRef who{e.serial, in, vl, 0};
  if (life_time_ != kTimeNever && e.head + life_time_ < config_.horizon)
    schedule<&Switch::lifetime_expired>(std::max(e.head + life_time_, now()), this, who);
  if (eligible > now()) schedule<&Switch::head_eligible>(eligible, this, who);
  else request(in, vl);
}

void Switch::schedule_request(PortNum in, std::uint8_t vl, PortNum out) {
  const Entry& e = inputs_[in - 1][vl].front();
  const Time eligible = eligible_time(e, out);
  if (eligible > now()) schedule<&Switch::copy_eligible>(eligible, this, EntryRef{e.serial, in, vl, out});
  else request_copy(in, vl, out);
}

void Switch::request_copy(PortNum in, std::uint8_t vl, PortNum out) {
  const Entry& e = inputs_[in - 1][vl].front();
  const std::uint8_t out_vl = sl_to_vl(in, out).vl(lrh_sl(e.p->header.data()));
  if (out_vl == kVl15 || out_vl >= ports_[out - 1]->op_vls()) return drop_copy(in, vl, out, DropReason::kSlToVlDrop);
  Output& o = *outputs_[out - 1];
  o.requesters[out_vl].push_back(static_cast<Requester>((in << 4) | vl));
  o.waiting |= static_cast<std::uint16_t>(1u << out_vl);
  try_start(out);
}

// A copy that cannot go is dropped alone (counted at its output); the original is not a drop.
void Switch::drop_copy(PortNum in, std::uint8_t vl, PortNum out, DropReason reason) {
  ++discards_[out - 1][static_cast<int>(reason)];
  Entry& e = inputs_[in - 1][vl].front();
  --e.copies_left;
  if (e.copies_left == 0 && e.copies_active == 0) retire_multicast(in, vl);
}

void Switch::retire_multicast(PortNum in, std::uint8_t vl) {
  auto& q = inputs_[in - 1][vl];
  Entry e = q.front();
  q.pop_front();
  ledger_.replicated();
  ports_[in - 1]->free_rx(vl, e.blocks);
  pool_.release(e.p);
  if (!q.empty()) consider_head(in, vl);
}

void Switch::request(PortNum in, std::uint8_t vl) {
  Entry& e = inputs_[in - 1][vl].front();
  e.requesting = true;
  Output& o = *outputs_[e.out - 1];
  o.requesters[e.out_vl].push_back(static_cast<Requester>((in << 4) | vl));
  o.waiting |= static_cast<std::uint16_t>(1u << e.out_vl);
  const Time hoq = hoq_life_[e.out - 1];
  if (hoq != kTimeNever && now() + hoq < config_.horizon)
    schedule<&Switch::hoq_expired>(now() + hoq, this, EntryRef{e.serial, in, vl, 0});
  try_start(e.out);
}

void Switch::discard_head(PortNum in, std::uint8_t vl, DropReason reason) {
  auto& q = inputs_[in - 1][vl];
  Entry e = q.front();
  if (e.requesting) {
    Output& o = *outputs_[e.out - 1];
    auto& r = o.requesters[e.out_vl];
    r.erase(std::find(r.begin(), r.end(), static_cast<Requester>((in << 4) | vl)));
    clear_if_idle(o, e.out_vl);
  }
  q.pop_front();
  if (cc_ && !e.mcast) cc_->dequeued(e.out, e.out_vl, e.blocks);
  count_discard(e.out, reason, *e.p);
  ports_[in - 1]->free_rx(vl, e.blocks);
  pool_.release(e.p);
  if (!q.empty()) consider_head(in, vl);
}

// Heads waiting for an output that cannot carry them any more are discarded (R20).
void Switch::discard_unsendable(PortNum out) {
  Output& o = *outputs_[out - 1];
  const LinkPort& port = *ports_[out - 1];
  if (port.state() == PortState::kActive) return;
  const unsigned op_vls = port.op_vls();
  for (unsigned v = 0; v <= kMaxDataVls; ++v) {
    if (v < kMaxDataVls && v >= op_vls) continue;
    if (v == kVl15 && port.state() != PortState::kDown) continue;
    while (!o.requesters[v].empty()) {
      const Requester r = o.requesters[v].front();
      const DropReason why = port.state() == PortState::kDown ? DropReason::kLinkDown : DropReason::kPortState;
      if (inputs_[(r >> 4) - 1][r & 15].front().mcast) {
        o.requesters[v].erase(o.requesters[v].begin());
        clear_if_idle(o, v);
        drop_copy(static_cast<PortNum>(r >> 4), r & 15, out, why);
      } else {
        discard_head(static_cast<PortNum>(r >> 4), r & 15, why);
      }
    }
  }
}

// The round-robin winner among the inputs requesting output VL `vl` whose packet fits (the first
// at or after next_rr): kBlocked if none fits.
PortOutput::Candidacy Switch::candidate(Output& o, std::uint8_t vl) {
  const LinkPort& port = *ports_[o.out - 1];
  const unsigned n = static_cast<unsigned>(ports_.size());
  const auto& reqs = o.requesters[vl];
  std::int16_t best = -1;
  unsigned best_dist = ~0u;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    const PortNum in = static_cast<PortNum>(reqs[i] >> 4);
    const unsigned dist = ((in + n - o.next_rr[vl]) % n) * 16 + (reqs[i] & 15);
    if (dist < best_dist && port.may_send(vl, inputs_[in - 1][reqs[i] & 15].front().blocks)) {
      best = static_cast<std::int16_t>(i);
      best_dist = dist;
    }
  }
  o.winner[vl] = best;
  if (best >= 0) return PortOutput::Candidacy::kReady;
  if (cc_ && vl != kVl15) cc_->credit_wait(o.out, vl);
  return PortOutput::Candidacy::kBlocked;
}

// The arbiter chose output VL `vl`: its winning input's packet (or a multicast copy of it) goes.
Packet* Switch::grant(Output& o, std::uint8_t vl) {
  LinkPort& port = *ports_[o.out - 1];
  const unsigned n = static_cast<unsigned>(ports_.size());
  auto& reqs = o.requesters[vl];
  const std::size_t best = static_cast<std::size_t>(o.winner[vl]);
  const Requester r = reqs[best];
  reqs.erase(reqs.begin() + static_cast<std::ptrdiff_t>(best));
  clear_if_idle(o, vl);
  const PortNum in = static_cast<PortNum>(r >> 4);
  o.next_rr[vl] = static_cast<PortNum>(in % n + 1);
  o.sending = r;
  Entry& e = inputs_[in - 1][r & 15].front();
  e.granted = true;
  Packet* p = e.p;
  if (e.mcast) {
    // Each copy is a packet of its own from here on (later hops may rewrite its VL).
    p = pool_.acquire();
    *p = *e.p;
    ledger_.replica_created();
    --e.copies_left;
    ++e.copies_active;
  }
  bool rewrite = false;
  if (lrh_vl(p->header.data()) != vl) {
    // The VL is the only field a switch rewrites, with FECN; VCRC covers them, ICRC does not (R12).
    set_lrh_vl(p->header.data(), vl);
    rewrite = true;
  }
  if (cc_ && vl != kVl15 && cc_depart(o.out, vl, e, port)) rewrite |= mark_fecn(*p, false);
  if (rewrite) write_vcrc(*p);
  // Before its tail check this switch may still stomp it: the next receiver must check it too.
  p->end_pending = e.check && !e.tail_checked;
  return p;
}

void Switch::Output::sent(std::uint8_t, Packet* p, Time) {
  Entry& e = sw.inputs_[(sending >> 4) - 1][sending & 15].front();
  e.out_seq = sending_seq = p->link_seq;
  ++sw.stats_.forwarded;
}

bool Switch::blocked_after_send(Output& o, std::uint8_t vl) {
  const LinkPort& port = *ports_[o.out - 1];
  bool fits = o.requesters[vl].empty();
  for (const Requester q : o.requesters[vl])
    fits = fits || port.may_send(vl, inputs_[(q >> 4) - 1][q & 15].front().blocks);
  if (!fits && cc_) cc_->credit_wait(o.out, vl);
  return !fits;
}

void Switch::output_done(Output& o, Packet* p) {
  const PortNum in = static_cast<PortNum>(o.sending >> 4);
  const std::uint8_t vl = o.sending & 15;
  o.sending = 0;
  auto& q = inputs_[in - 1][vl];
  if (!q.empty() && q.front().mcast) {
    Entry& e = q.front();
    IBFSIM_CHECK(e.copies_active > 0 && p != e.p, "multicast copy accounting broken");
    --e.copies_active;
    if (e.copies_left == 0 && e.copies_active == 0) retire_multicast(in, vl);
    return;
  }
  IBFSIM_CHECK(!q.empty() && q.front().p == p, "switch output finished a packet its input does not hold");
  const std::uint32_t blocks = q.front().blocks;
  if (cc_) cc_->dequeued(q.front().out, q.front().out_vl, blocks);
  q.pop_front();
  ports_[in - 1]->free_rx(vl, blocks);
  if (!q.empty()) consider_head(in, vl);
}

void Switch::on_tx_done(LinkPort& port, Packet* p) { outputs_[port.number() - 1]->stage.tx_done(p); }

bool Switch::cc_depart(PortNum out, std::uint8_t vl, const Entry& e, const LinkPort& port) {
  const std::uint32_t left = port.tx_credits(vl).available();
  return cc_->depart(out, vl, e.blocks, e.fecn && !e.mcast, left >= e.blocks ? left - e.blocks : 0,
                     port.far_buffer_blocks());
}

std::uint32_t Switch::output_queue_blocks(PortNum out) const {
  std::uint32_t n = 0;
  for (const auto& port : inputs_)
    for (const auto& q : port)
      for (std::size_t i = 0; i < q.size(); ++i)
        if (!q.at(i).mcast && q.at(i).out == out) n += q.at(i).blocks;
  return n;
}

void Switch::set_congestion_control(const SwitchCongestionConfig& config) {
  cc_config_ = config;
  if (!config.marks(num_ports())) {
    cc_.reset();
    return;
  }
  constexpr std::uint64_t kCcMarkingStream = std::uint64_t{0xCC} << 48;
  cc_ = std::make_unique<CongestionDetector>(config, num_ports(), config_.buffers.data_vl_blocks,
                                             RngStream(config_.seed, kCcMarkingStream + config_.node_index));
  // Packets already queued count from now on (they met no congestion: they came before it was on).
  for (auto& port : inputs_)
    for (auto& q : port)
      for (std::size_t i = 0; i < q.size(); ++i)
        if (!q.at(i).mcast) {
          q.at(i).fecn = false;
          cc_->enqueued(q.at(i).out, q.at(i).out_vl, q.at(i).blocks);
        }
}

void Switch::on_output_free(LinkPort& port) { try_start(port.number()); }

void Switch::on_credits(LinkPort& port) { try_start(port.number()); }

void Switch::head_eligible(EntryRef r) {
  auto& q = inputs_[r.in - 1][r.vl];
  if (q.empty() || q.front().serial != r.serial) return;
  if (!q.front().requesting) request(r.in, r.vl);
}

void Switch::copy_eligible(EntryRef r) {
  auto& q = inputs_[r.in - 1][r.vl];
  if (q.empty() || q.front().serial != r.serial) return;
  if (!q.front().bad) request_copy(r.in, r.vl, r.out);
}

void Switch::discard_at_tail(Packet* p, TailDiscard d) {
  const PortNum in = d.in;
  DropReason reason = d.reason;
  // A link-layer error is what the input counts first (PortRcvErrors).
  if (d.check)
    if (auto bad = ports_[in - 1]->check_tail(p->link_seq, p)) reason = *bad;
  count_discard(in, reason, *p);
  ports_[in - 1]->free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
  pool_.release(p);
}

void Switch::hoq_expired(EntryRef r) { expired(r, true); }

void Switch::lifetime_expired(EntryRef r) { expired(r, false); }

void Switch::expired(EntryRef r, bool hoq) {
  auto& q = inputs_[r.in - 1][r.vl];
  if (q.empty() || q.front().serial != r.serial || q.front().granted) return;
  if (hoq && !q.front().requesting) return;
  const PortNum out = q.front().out;
  discard_head(r.in, r.vl, hoq ? DropReason::kHoqLifetime : DropReason::kSwitchLifetime);
  try_start(out);
}

void Switch::tail_arrives(EntryRef r) { tail_check(r.in, r.vl, r.serial); }

}  // namespace ibfsim
