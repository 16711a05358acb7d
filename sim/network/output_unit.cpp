#include "sim/network/output_unit.h"

#include <algorithm>

#include "sim/link/vcrc.h"
#include "sim/network/fecn_marker.h"
#include "sim/link/lrh.h"
#include "sim/network/switch.h"

namespace ibfsim {

OutputUnit::OutputUnit(Switch& sw, LinkPort& port, unsigned num_ports, const VlArbConfig& arbitration, Time hoq_life)
    : sw_(sw), port_(port), out_(port.number()), num_ports_(num_ports), hoq_life_(hoq_life),
      stage_(port, *this, arbitration, false) {
  next_rr_.fill(1);
}

void OutputUnit::withdraw(std::uint8_t vl, Requester r) {
  auto& reqs = requests_[vl];
  reqs.erase(std::find_if(reqs.begin(), reqs.end(), [r](const Request& q) { return q.from == r; }));
  clear_if_idle(vl);
}

void OutputUnit::withdraw(Requester r) {
  for (std::uint16_t m = waiting_; m; m &= static_cast<std::uint16_t>(m - 1)) {
    const unsigned v = static_cast<unsigned>(__builtin_ctz(m));
    auto& reqs = requests_[v];
    reqs.erase(std::remove_if(reqs.begin(), reqs.end(), [r](const Request& q) { return q.from == r; }), reqs.end());
    clear_if_idle(v);
  }
}

// Heads waiting for an output that cannot carry them any more are discarded (R20).
void OutputUnit::prepare() {
  if (port_.state() == PortState::kActive) return;
  const unsigned op_vls = port_.op_vls();
  for (unsigned v = 0; v <= kMaxDataVls; ++v) {
    if (v < kMaxDataVls && v >= op_vls) continue;
    if (v == kVl15 && port_.state() != PortState::kDown) continue;
    while (!requests_[v].empty()) {
      const Requester r = requests_[v].front().from;
      const DropReason why = port_.state() == PortState::kDown ? DropReason::kLinkDown : DropReason::kPortState;
      if (sw_.input_unit(r.in).head(r.vl).multicast()) {
        requests_[v].erase(requests_[v].begin());
        clear_if_idle(v);
        sw_.replicator().drop_copy(r.in, r.vl, out_, why);
      } else {
        sw_.input_unit(r.in).discard_head(r.vl, why);
      }
    }
  }
}

// The round-robin winner among the inputs requesting output VL `vl` whose packet fits (the first
// at or after next_rr): kBlocked if none fits.
PortOutput::Candidacy OutputUnit::candidate(std::uint8_t vl) {
  const unsigned n = num_ports_;
  const auto& reqs = requests_[vl];
  std::int16_t best = -1;
  unsigned best_dist = ~0u;
  for (std::size_t i = 0; i < reqs.size(); ++i) {
    const Requester r = reqs[i].from;
    const unsigned dist = ((r.in + n - next_rr_[vl]) % n) * 16 + r.vl;
    if (dist < best_dist && port_.may_send(vl, reqs[i].blocks)) {
      best = static_cast<std::int16_t>(i);
      best_dist = dist;
    }
  }
  winner_[vl] = best;
  if (best >= 0) return PortOutput::Candidacy::kReady;
  if (CongestionDetector* cc = sw_.cc(); cc && vl != kVl15) cc->credit_wait(out_, vl);
  return PortOutput::Candidacy::kBlocked;
}

// The arbiter chose output VL `vl`: its winning input's packet (or a multicast copy of it) goes.
Packet* OutputUnit::take(std::uint8_t vl) {
  auto& reqs = requests_[vl];
  const std::size_t best = static_cast<std::size_t>(winner_[vl]);
  const Requester r = reqs[best].from;
  reqs.erase(reqs.begin() + static_cast<std::ptrdiff_t>(best));
  clear_if_idle(vl);
  next_rr_[vl] = static_cast<PortNum>(r.in % num_ports_ + 1);
  sending_ = r;
  QueuedPacket& e = sw_.input_unit(r.in).head(r.vl);
  e.granted = true;
  // Each multicast copy is a packet of its own from here on (later hops may rewrite its VL).
  Packet* p = e.multicast() ? sw_.replicator().replicate(e) : e.p;
  // A router rebuilds the LRH for the next subnet (grh_forwarding.h).
  bool rewrite = false;
  if (const GrhForwarding* grh = sw_.routing_unit().grh_forwarding(); grh && vl != kVl15) rewrite = grh->rebuild(*p, out_);
  if (lrh_vl(p->header.data()) != vl) {
    // The VL is the only field a switch rewrites, with FECN; VCRC covers them, ICRC does not (R12).
    set_lrh_vl(p->header.data(), vl);
    rewrite = true;
  }
  if (sw_.cc() && vl != kVl15 && cc_depart(vl, e.blocks, e.fecn && !e.multicast())) rewrite |= mark_fecn(*p, false);
  if (rewrite) write_vcrc(*p);
  // Before its tail check this switch may still stomp it: the next receiver must check it too.
  p->end_pending = e.check && !e.tail_checked;
  return p;
}

void OutputUnit::sent(std::uint8_t, Packet* p, Time) {
  QueuedPacket& e = sw_.input_unit(sending_.in).head(sending_.vl);
  e.out_seq = sending_seq_ = p->link_seq;
  sw_.count_forwarded();
}

bool OutputUnit::blocked_after_send(std::uint8_t vl) {
  bool fits = requests_[vl].empty();
  for (const Request& q : requests_[vl]) fits = fits || port_.may_send(vl, q.blocks);
  if (!fits)
    if (CongestionDetector* cc = sw_.cc()) cc->credit_wait(out_, vl);
  return !fits;
}

void OutputUnit::tx_done(Packet* p) {
  const Requester r = sending_;
  sending_ = Requester{};
  sw_.input_unit(r.in).sent_out(r.vl, p);
}

void OutputUnit::drop_own(Packet* p, DropReason reason) {
  sw_.count_discard(out_, reason, *p);
  sw_.pool().release(p);
}

bool OutputUnit::cc_depart(std::uint8_t vl, std::uint32_t blocks, bool marked) {
  const std::uint32_t left = port_.tx_credits(vl).available();
  return sw_.cc()->depart(out_, vl, blocks, marked, left >= blocks ? left - blocks : 0, port_.far_buffer_blocks());
}

}  // namespace ibfsim
