// One input port of a switch: the packets in its receive buffer, one FIFO per VL, from the
// arrival of each one's LRH until its last symbol has left (or it is discarded), when the unit
// frees its buffer space (the port then returns the credits upstream).
//
// Forwarding timing: a packet whose LRH is in at `head` and whose tail arrives at `tail` may
// leave on output o at the first edge c of o's clock with
//   time(c) >= head + latency   and   time(c + s_out) >= tail + latency,
// i.e. cut-through after the port-to-port latency, but never so early that the output (which
// takes s_out edges) would run ahead of a slower input (cut_through_time). Each (input, VL) is a
// FIFO: its head packet requests its output once eligible (head-of-line blocking within a VL,
// none across VLs), and frees its buffer space when its last symbol has left. A multicast head
// requests an output per copy instead (multicast_replicator.h).
//
// Adaptive routing binds late: a packet with an AR group (routing_unit.h) is queued without an
// output; when it is at the head and eligible, the switch chooses its port among the group's
// (adaptive_selector.h) with what it knows then, and only then does it join that output's queue.
//
// Discards at the input: a packet the routing unit refuses (routing_unit.h) is counted at its
// tail, where a link-layer error found then is what counts first. A unicast head is discarded,
// counted at its output, when it has waited at the head of its output's queue longer than
// HOQLife (R17, from its request), or stayed in the switch longer than LifeTimeValue (R18, from
// its head's arrival); lifetimes are not applied to multicast copies.
//
// Bad packets (a PHY error, a failed VCRC, an EBP end: LinkPort::check_tail) are known only at
// their tail, so the switch forwards as usual and checks at the tail time, with an event only for
// packets on an input where the line can corrupt them or whose sender may still stomp them. A bad
// packet that has not started on its output is discarded then (counted at the input); one that a
// cut-through already started is ended with EBP on the output (LinkPort::stomp), as are the
// multicast copies on the wire (the copies not yet started are not sent), and the next receiver
// drops it.
#pragma once
#include <array>
#include <cstdint>
#include <string>

#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/core/ring_queue.h"
#include "sim/core/symbol_clock.h"
#include "sim/link/link_port.h"
#include "sim/network/multicast_replicator.h"

namespace ibfsim {

class CongestionDetector;
class Switch;

// The cut-through rule: the time of the first edge c of the output's clock at or after `now`
// with time(c) >= head + latency and time(c + s_out) >= tail + latency, for a packet that takes
// s_out edges on the output.
Time cut_through_time(const SymbolClock& out_clock, std::uint64_t s_out, Time head, Time tail, Time latency,
                      Time now);

// A packet in an input queue (wide fields first: it is copied into the queue, 80 bytes).
struct QueuedPacket {
  Packet* p = nullptr;
  Time head = 0, tail = 0;
  std::uint64_t serial = 0;   // names it in events
  // Checked at the tail (LinkPort::tail_check_needed): its numbers on the input and output links.
  std::uint64_t in_seq = 0;
  std::uint64_t out_seq = 0;
  MulticastCopies mcast;      // a multicast packet's copies (group null for unicast)
  std::uint32_t blocks = 0;   // its receive buffer space, 64-byte blocks
  PortNum out = 0;            // unicast: its output and VL there (multicast: 0)
  std::uint8_t out_vl = 0;
  bool requesting = false;    // registered with its output
  bool granted = false;       // on the wire (multicast: a copy started)
  bool fecn = false;          // met congestion on arrival: leaves with FECN (congestion_detector.h)
  bool check = false;         // its tail needs the link layer's verdict ...
  bool tail_checked = false;  // ... which it has had
  // Adaptive routing: its AR group while its port is not chosen yet (chosen when it requests an
  // output, adaptive_selector.h; `out` until then is a group port that may take it, for timing).
  std::uint16_t ar_group = 0;

  bool multicast() const { return mcast.group != nullptr; }
};

class InputUnit {
 public:
  InputUnit(Switch& sw, LinkPort& port);

  PortNum number() const { return in_; }
  const std::string& name() const { return port_.name(); }  // event traces
  LinkPort& port() { return port_; }

  // The LRH of `p` is in (PortOwner::on_packet_head), its tail arrives at `tail`: routed, it is
  // queued, handed to the management port at its tail, or discarded at its tail.
  void packet_arrives(Packet* p, Time head, Time tail);

  // The packet at the head of `vl` (the queue is not empty).
  QueuedPacket& head(std::uint8_t vl) { return queues_[vl].front(); }
  const RingQueue<QueuedPacket>& queue(std::uint8_t vl) const { return queues_[vl]; }
  std::size_t queue_depth(std::uint8_t vl) const { return queues_[vl].size(); }
  // Blocks of the unicast packets queued for output `out` (every VL).
  std::uint32_t queued_blocks(PortNum out) const;
  // Congestion detection began: the unicast packets already queued count from now on, unmarked.
  void congestion_control_started(CongestionDetector& cc);
  // When the head of a queue may request output `out` (the cut-through rule).
  Time eligible_time(const QueuedPacket& e, PortNum out) const;

  // The output finished sending packet `p` taken from the head of `vl` (the packet itself, or a
  // multicast copy of it).
  void sent_out(std::uint8_t vl, Packet* p);
  // Discards the head of `vl`, which waits for its output and has not started, counted at that
  // output (R17, R18, R20).
  void discard_head(std::uint8_t vl, DropReason reason);
  // Every copy of the multicast head of `vl` is done: it leaves.
  void retire_multicast(std::uint8_t vl);

  // --- events (event.h) ---
  // A queued packet: the entry `serial` of queue `vl`.
  struct EntryRef {
    std::uint64_t serial;
    std::uint8_t vl;
    std::string text() const { return "vl" + std::to_string(vl) + " entry " + std::to_string(serial); }
  };
  // A packet discarded on its header, counted at its tail.
  struct TailDiscard {
    DropReason reason;
    bool check;  // its tail needs the link layer's verdict
    std::string text() const { return drop_reason_name(reason); }
  };
  // The head may now request its output (the cut-through rule).
  void head_eligible(EntryRef r);
  // HOQLife (R17) or the switch lifetime (R18) of a queued head ran out.
  void hoq_expired(EntryRef r);
  void lifetime_expired(EntryRef r);
  // The tail of a packet that may turn out bad has arrived: the link layer's verdict.
  void tail_arrives(EntryRef r);
  void discard_at_tail(Packet* p, TailDiscard d);

 private:
  void enqueue(std::uint8_t vl, const QueuedPacket& e);
  // Unicast `e` joins its output's queue (the counts adaptive routing and congestion control keep).
  void joined(QueuedPacket& e);
  // The packet now at the head of `vl` requests its output(s) once eligible.
  void consider_head(std::uint8_t vl);
  void request(std::uint8_t vl);
  void expired(EntryRef r, bool hoq);
  // Discards entry i of `vl`, which has not started on any output, counted at this input.
  void drop_queued(std::uint8_t vl, std::size_t i, DropReason reason);

  Switch& sw_;
  LinkPort& port_;
  PortNum in_;
  std::array<RingQueue<QueuedPacket>, kMaxDataVls + 1> queues_;
  std::uint64_t next_serial_ = 1;
};

}  // namespace ibfsim
