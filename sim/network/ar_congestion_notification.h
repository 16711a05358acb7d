// Adaptive routing congestion notifications (docs/adaptive_routing.md, "Congestion notifications"),
// modelled on what NVIDIA calls Adaptive Routing Notification: a switch sees only its own ports'
// credits and queues, so a leaf cannot tell that the spine it chose for a flow has a congested
// down-link towards the flow's destination leaf (two flows of different leaves meeting there). The
// spine can: when the data packet at the head of one of its inputs requests an output for which
// the head of another input already waits (two inputs contend for it), and that output's queue
// (64-byte blocks in this switch's input buffers, per output and VL) is at the threshold or more,
// it sends a notification back out of the packet's input port, to the switch that fed it, naming the packet's DLID. The
// upstream switch then ranks that (DLID, port) last in its adaptive choice for `hold`
// (adaptive_routing.h), so that the flow's next flowlet goes another way.
//
// One notification per congested output and VL per `hold` (the others feeding it keep their
// paths: moving one flow is what relieves two that meet); only towards inputs whose far end is a
// switch (NotifyPortMask). The packet is a fault notification's (fault_notification.h: VL15,
// LNH 1, permissive DLID) with type 0x02 and one LID; sending it and acting on it each take the
// switch's notification latency, as for fault notifications. Settings: AdaptiveRoutingInfo's
// CongestionThreshold (0: off) and CongestionHold (subnet_manager/mad/adaptive_routing.h).
#pragma once
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/time.h"
#include "sim/network/fault_notification.h"

namespace ibfsim {

class Switch;

// --- the decisions, pure ---

// The sending side: per (output, VL), until when it stays quiet after a notification.
class ArnSendFilter {
 public:
  // A packet requests (out, vl), contended, whose queue holds `queued` blocks: whether to notify
  // (the queue is at `threshold` or more, threshold 0 meaning never, and the output has not
  // notified in the last `hold`); if so, the output stays quiet until now + hold.
  bool should_notify(PortNum out, std::uint8_t vl, std::uint32_t queued, std::uint32_t threshold, Time now, Time hold);

 private:
  std::unordered_map<std::uint32_t, Time> quiet_until_;  // by out << 8 | vl
};

// The receiving side: the (DLID, port) pairs ranked last, and until when.
class ArnPenalties {
 public:
  void penalize(Lid dlid, PortNum port, Time until);
  bool penalized(Lid dlid, PortNum port, Time now) const {
    if (until_.empty()) return false;
    const auto it = until_.find(key(dlid, port));
    return it != until_.end() && now < it->second;
  }
  void clear() { until_.clear(); }

 private:
  static std::uint32_t key(Lid dlid, PortNum port) { return static_cast<std::uint32_t>(dlid) << 8 | port; }
  std::unordered_map<std::uint32_t, Time> until_;
};

// --- the switch block ---

struct ArnStats {
  std::uint64_t sent = 0;       // congestion notifications sent
  std::uint64_t received = 0;   // ... and received
  std::uint64_t penalized = 0;  // (DLID, port) pairs ranked last on their word (received for a group port)
  Time first_applied = kTimeNever;  // when the first one took effect here
};

class ArCongestionNotifier {
 public:
  explicit ArCongestionNotifier(Switch& sw) : sw_(sw) {}
  std::string name() const;  // event traces

  // The unicast data packet `p` at the head of input `in` requests output (out, vl), for which the
  // head of another input already waits and `queued` blocks wait in all.
  void contended(PortNum in, PortNum out, std::uint8_t vl, std::uint32_t queued, const Packet& p);
  // A congestion notification came in on `in` (its tail in, checked: fault_notification.h).
  void received(FaultNotification n, PortNum in);
  // Whether the choice ranks `port` last for `dlid` now.
  bool penalized(Lid dlid, PortNum port, Time now) const { return penalties_.penalized(dlid, port, now); }
  // The SM programmed new AR tables: they supersede every penalty.
  void clear() { penalties_.clear(); }
  const ArnStats& stats() const { return stats_; }

  // --- events (event.h) ---
  struct Pending {
    std::uint32_t index;  // into pending_
    std::string text() const { return "notification " + std::to_string(index); }
  };
  void announce(Pending what);
  void apply(Pending what);

 private:
  struct Work {
    Lid dlid = 0;
    PortNum port = 0;  // sending: out of this port; applying: the port it came in on
  };
  std::uint32_t park(Work w);

  Switch& sw_;
  ArnSendFilter filter_;
  ArnPenalties penalties_;
  std::vector<Work> pending_;
  std::vector<std::uint32_t> free_;
  ArnStats stats_;
};

}  // namespace ibfsim
