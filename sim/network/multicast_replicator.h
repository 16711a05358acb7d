// The multicast replication of a switch. A packet to a multicast LID (routing_unit.h) goes out as
// one copy on every cabled port of its MFT entry but its input. Its input queue holds the
// original; once it is at the head, each copy becomes eligible on its own output's clock (the
// cut-through rule, input_unit.h) and requests that output on the VL its SL maps to there. A
// copy whose SL maps to VL15 or to a VL its output does not operate is dropped alone (R16), as is
// one waiting for an output that can no longer carry it (R20): counted at that output, while the
// original is no drop. Each copy granted is a packet of its own from then on (later hops may
// rewrite its VL); the original leaves its input queue, freeing its buffer, when every copy has
// been sent or dropped. Lifetimes are not applied to copies.
// A multicast packet found bad at its tail (input_unit.h) after a copy started: the copies on the
// wire are ended with EBP (LinkPort::stomp), the copies not yet started are not sent.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"

namespace ibfsim {

class Switch;
struct QueuedPacket;

// The copies of one multicast packet in an input queue.
struct MulticastCopies {
  const std::vector<PortNum>* group = nullptr;  // its MFT entry (null: a unicast packet)
  std::uint16_t left = 0;    // copies not yet started
  std::uint16_t active = 0;  // copies on the wire; the original leaves when both are 0
  bool bad = false;          // found bad at its tail: no more copies
};

class MulticastReplicator {
 public:
  explicit MulticastReplicator(Switch& sw) : sw_(sw) {}
  std::string name() const;  // event traces

  // The multicast packet now at the head of input (in, vl): each copy requests its output once
  // eligible.
  void head_ready(PortNum in, std::uint8_t vl);
  // Output `out` chose the copy for it of `e`, the head of an input: a new packet.
  Packet* replicate(QueuedPacket& e);
  // Output `out` finished the copy `p` of the head of input (in, vl).
  void copy_done(PortNum in, std::uint8_t vl, Packet* p);
  // The copy of the head of input (in, vl) for `out` cannot go: dropped, counted at `out`.
  void drop_copy(PortNum in, std::uint8_t vl, PortNum out, DropReason reason);
  // The head of input (in, vl) turned out bad at its tail, after a copy started.
  void bad_tail(PortNum in, std::uint8_t vl);
  // The head of input (in, vl), with copies `c`, is dropped: its copies' requests go.
  void withdraw(PortNum in, std::uint8_t vl, const MulticastCopies& c);

  // --- events (event.h) ---
  // The copy for output `out` of the entry `serial` at the head of input (in, vl).
  struct CopyRef {
    std::uint64_t serial;
    PortNum in;
    std::uint8_t vl;
    PortNum out;
    std::string text() const {
      return "in " + std::to_string(in) + " vl" + std::to_string(vl) + " entry " + std::to_string(serial) + " out " +
             std::to_string(out);
    }
  };
  // That copy may now request its output (the cut-through rule).
  void copy_eligible(CopyRef r);

 private:
  void schedule_request(PortNum in, std::uint8_t vl, PortNum out);
  void request_copy(PortNum in, std::uint8_t vl, PortNum out);
  // Whether `o` of a group receives a copy of a packet from `in`.
  bool copy_port(PortNum o, PortNum in) const;

  Switch& sw_;
};

}  // namespace ibfsim
