#include "sim/network/input_unit.h"

#include <algorithm>

#include "sim/core/error.h"
#include "sim/link/lrh.h"
#include "sim/network/switch.h"

namespace ibfsim {

static_assert(sizeof(QueuedPacket) <= 80, "QueuedPacket grew: keep the queue's copies small");

Time cut_through_time(const SymbolClock& out_clock, std::uint64_t s_out, Time head, Time tail, Time latency,
                      Time now) {
  std::uint64_t c = std::max(out_clock.cycle_at_or_after(head + latency), out_clock.cycle_at_or_after(now));
  const std::uint64_t c_tail = out_clock.cycle_at_or_after(tail + latency);
  if (c_tail > s_out) c = std::max(c, c_tail - s_out);
  return out_clock.time_of(c);
}

InputUnit::InputUnit(Switch& sw, LinkPort& port) : sw_(sw), port_(port), in_(port.number()) {}

void InputUnit::packet_arrives(Packet* p, Time head, Time tail) {
  using Kind = RouteDecision::Kind;
  // Whether the packet is good (VCRC, R11; PHY errors; EBP) is known at its tail: it is routed on
  // the header as sent meanwhile, and checked then (tail_arrives) if it can be bad at all.
  const bool check = LinkPort::tail_check_needed(*p);
  RouteDecision d = sw_.routing_unit().route(in_, p->header.data(), p->payload_len, sw_.port_links());
  // A packet none of whose group ports could take it now is routed by the LFT alone.
  if (d.ar_group != 0) {
    if (const PortNum any = sw_.adaptive_selector().any_port(in_, *p, d.ar_group)) d.out = any;
    else d = sw_.routing_unit().unicast_to(in_, d.out, p->header.data(), p->payload_len, sw_.port_links());
  }
  if (d.kind == Kind::kDiscard) {
    sw_.schedule<&InputUnit::discard_at_tail>(tail, this, p, TailDiscard{d.reason, check});
    return;
  }
  if (d.kind == Kind::kNotification) {
    sw_.schedule<&FaultNotifier::arrives>(tail, &sw_.fault_notifier(), p, FaultNotifier::Arrival{in_, check});
    return;
  }
  if (d.kind == Kind::kManagement) {
    // The management port takes the packet whole, at its tail.
    sw_.schedule<&ManagementPort::packet_arrives>(tail, &sw_.management_port(), p, ManagementPort::Arrival{in_, check});
    return;
  }
  QueuedPacket e;
  e.p = p;
  e.head = head;
  e.tail = tail;
  e.blocks = credits_for_bytes(p->wire_bytes());
  e.serial = next_serial_++;
  e.check = check;
  e.in_seq = p->link_seq;
  if (d.kind == Kind::kMulticast) {
    e.mcast.group = d.group;
    e.mcast.left = d.copies;
  } else {
    e.out = d.out;
    e.out_vl = d.out_vl;
    e.ar_group = d.ar_group;
    if (e.ar_group == 0) joined(e);
  }
  enqueue(lrh_vl(p->header.data()), e);
}

void InputUnit::joined(QueuedPacket& e) {
  sw_.queue_joined(e.out, e.out_vl, e.blocks);
  if (CongestionDetector* cc = sw_.cc()) e.fecn = cc->arrive(e.out, e.out_vl, e.blocks);
}

void InputUnit::enqueue(std::uint8_t vl, const QueuedPacket& e) {
  auto& q = queues_[vl];
  q.push_back(e);
  if (e.check) sw_.schedule<&InputUnit::tail_arrives>(e.tail, this, EntryRef{e.serial, vl});
  if (q.size() == 1) consider_head(vl);
}

void InputUnit::discard_at_tail(Packet* p, TailDiscard d) {
  DropReason reason = d.reason;
  // A link-layer error is what the input counts first (PortRcvErrors).
  if (d.check)
    if (auto bad = port_.check_tail(p->link_seq, p)) reason = *bad;
  sw_.count_discard(in_, reason, *p);
  port_.free_rx(lrh_vl(p->header.data()), credits_for_bytes(p->wire_bytes()));
  sw_.pool().release(p);
}

Time InputUnit::eligible_time(const QueuedPacket& e, PortNum out) const {
  const LinkPort& o = sw_.link(out);
  return cut_through_time(o.clock(), o.symbols_for(e.p->wire_bytes()), e.head, e.tail, sw_.config().latency,
                          Switch::now());
}

void InputUnit::consider_head(std::uint8_t vl) {
  QueuedPacket& e = queues_[vl].front();
  if (e.multicast()) return sw_.replicator().head_ready(in_, vl);
  // Not chosen yet: when it may go is timed on a port of its group that could take it now.
  if (e.ar_group != 0) e.out = sw_.adaptive_selector().any_port(in_, *e.p, e.ar_group, e.out);
  const Time now = Switch::now();
  const Time eligible = eligible_time(e, e.out);
  const EntryRef who{e.serial, vl};
  const Time life = sw_.life_time();
  if (life != kTimeNever && e.head + life < sw_.config().horizon)
    sw_.schedule<&InputUnit::lifetime_expired>(std::max(e.head + life, now), this, who);
  if (eligible > now) sw_.schedule<&InputUnit::head_eligible>(eligible, this, who);
  else request(vl);
}

void InputUnit::request(std::uint8_t vl) {
  QueuedPacket& e = queues_[vl].front();
  if (e.ar_group != 0) {
    const RouteDecision d = sw_.adaptive_selector().choose(in_, *e.p, e.ar_group, e.out);
    e.ar_group = 0;
    e.out = d.out;
    e.out_vl = d.out_vl;
    joined(e);
    // A port of another speed may make it wait longer.
    const Time eligible = eligible_time(e, e.out);
    if (eligible > Switch::now()) {
      sw_.schedule<&InputUnit::head_eligible>(eligible, this, EntryRef{e.serial, vl});
      return;
    }
  }
  e.requesting = true;
  OutputUnit& o = sw_.output_unit(e.out);
  // Another input's head already waits for this output: it is contended (congestion notifications).
  if (e.out_vl != kVl15 && o.requests(e.out_vl) != 0)
    sw_.ar_congestion().contended(in_, e.out, e.out_vl, sw_.queued_blocks(e.out, e.out_vl), *e.p);
  o.request(e.out_vl, Requester{in_, vl}, e.blocks);
  const Time now = Switch::now();
  const Time hoq = o.hoq_life();
  if (hoq != kTimeNever && now + hoq < sw_.config().horizon)
    sw_.schedule<&InputUnit::hoq_expired>(now + hoq, this, EntryRef{e.serial, vl});
  o.try_start();
}

void InputUnit::head_eligible(EntryRef r) {
  auto& q = queues_[r.vl];
  if (q.empty() || q.front().serial != r.serial) return;
  if (!q.front().requesting) request(r.vl);
}

void InputUnit::hoq_expired(EntryRef r) { expired(r, true); }

void InputUnit::lifetime_expired(EntryRef r) { expired(r, false); }

void InputUnit::expired(EntryRef r, bool hoq) {
  auto& q = queues_[r.vl];
  if (q.empty() || q.front().serial != r.serial || q.front().granted) return;
  if (hoq && !q.front().requesting) return;
  const PortNum out = q.front().out;
  discard_head(r.vl, hoq ? DropReason::kHoqLifetime : DropReason::kSwitchLifetime);
  sw_.output_unit(out).try_start();
}

void InputUnit::discard_head(std::uint8_t vl, DropReason reason) {
  auto& q = queues_[vl];
  const QueuedPacket e = q.front();
  if (e.requesting) sw_.output_unit(e.out).withdraw(e.out_vl, Requester{in_, vl});
  q.pop_front();
  CongestionDetector* cc = sw_.cc();
  const bool in_queue = !e.multicast() && e.ar_group == 0;  // joined its output's queue
  if (cc && in_queue) cc->dequeued(e.out, e.out_vl, e.blocks);
  if (in_queue) sw_.queue_left(e.out, e.out_vl, e.blocks);
  sw_.count_discard(e.out, reason, *e.p);
  port_.free_rx(vl, e.blocks);
  sw_.pool().release(e.p);
  if (!q.empty()) consider_head(vl);
}

void InputUnit::tail_arrives(EntryRef r) {
  auto& q = queues_[r.vl];
  std::size_t i = 0;
  while (i < q.size() && q.at(i).serial != r.serial) ++i;
  if (i == q.size()) return;  // discarded before its tail (lifetime, link down)
  QueuedPacket& e = q.at(i);
  e.tail_checked = true;
  // Once a packet (or a copy) is on an output, it belongs to the next hop: only its number is used.
  const auto bad = port_.check_tail(e.in_seq, e.granted ? nullptr : e.p);
  if (!bad) return;
  if (!e.granted) return drop_queued(r.vl, i, *bad);
  if (!e.multicast()) return sw_.link(e.out).stomp(e.out_seq);
  // A multicast packet at the head of its queue (a copy started).
  sw_.replicator().bad_tail(in_, r.vl);
}

void InputUnit::drop_queued(std::uint8_t vl, std::size_t i, DropReason reason) {
  auto& q = queues_[vl];
  const QueuedPacket e = q.at(i);
  const Requester r{in_, vl};
  if (e.requesting) sw_.output_unit(e.out).withdraw(r);
  if (e.multicast() && i == 0) sw_.replicator().withdraw(in_, vl, e.mcast);
  sw_.count_discard(in_, reason, *e.p);
  q.erase(i);
  CongestionDetector* cc = sw_.cc();
  const bool in_queue = !e.multicast() && e.ar_group == 0;
  if (cc && in_queue) cc->dequeued(e.out, e.out_vl, e.blocks);
  if (in_queue) sw_.queue_left(e.out, e.out_vl, e.blocks);
  port_.free_rx(vl, e.blocks);
  sw_.pool().release(e.p);
  if (i == 0 && !q.empty()) consider_head(vl);
}

void InputUnit::sent_out(std::uint8_t vl, Packet* p) {
  auto& q = queues_[vl];
  if (!q.empty() && q.front().multicast()) return sw_.replicator().copy_done(in_, vl, p);
  IBFSIM_CHECK(!q.empty() && q.front().p == p, "switch output finished a packet its input does not hold");
  const QueuedPacket& e = q.front();
  const std::uint32_t blocks = e.blocks;
  if (CongestionDetector* cc = sw_.cc()) cc->dequeued(e.out, e.out_vl, blocks);
  sw_.queue_left(e.out, e.out_vl, blocks);
  q.pop_front();
  port_.free_rx(vl, blocks);
  if (!q.empty()) consider_head(vl);
}

void InputUnit::retire_multicast(std::uint8_t vl) {
  auto& q = queues_[vl];
  const QueuedPacket e = q.front();
  q.pop_front();
  sw_.ledger().replicated();
  port_.free_rx(vl, e.blocks);
  sw_.pool().release(e.p);
  if (!q.empty()) consider_head(vl);
}

std::uint32_t InputUnit::queued_blocks(PortNum out) const {
  std::uint32_t n = 0;
  for (const auto& q : queues_)
    for (std::size_t i = 0; i < q.size(); ++i)
      if (!q.at(i).multicast() && q.at(i).ar_group == 0 && q.at(i).out == out) n += q.at(i).blocks;
  return n;
}

void InputUnit::congestion_control_started(CongestionDetector& cc) {
  for (auto& q : queues_)
    for (std::size_t i = 0; i < q.size(); ++i)
      if (!q.at(i).multicast() && q.at(i).ar_group == 0) {
        q.at(i).fecn = false;
        cc.enqueued(q.at(i).out, q.at(i).out_vl, q.at(i).blocks);
      }
}

}  // namespace ibfsim
