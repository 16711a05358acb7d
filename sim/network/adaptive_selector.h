// The switch block that makes the adaptive routing choice (adaptive_routing.h) for a packet whose
// routing unit decision names an AR group, when the packet is at the head of its input queue and
// may request an output (input_unit.h: adaptive routing binds late): it weighs only this switch's own
// state (its ports' states and transmit credits, the blocks queued in its own input buffers per
// output and VL, the routing notifications it received), never another module's.
//
// Counted: packets routed adaptively, those sent out of another port than the LFT's, those that
// kept their flowlet's port, those for which no port of the group could take them (the LFT's port
// decides then, and discards them when it cannot take them either), and per output port the
// packets it was chosen for.
#pragma once
#include <cstdint>
#include <unordered_map>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/time.h"
#include "sim/network/adaptive_routing.h"
#include "sim/network/routing_unit.h"

namespace ibfsim {

class Switch;

struct ArStats {
  std::uint64_t adaptive = 0;      // packets whose port was chosen among their group's
  std::uint64_t off_static = 0;    // ... and sent out of another port than the LFT's
  std::uint64_t flowlet_kept = 0;  // ... that kept the port of their flowlet
  std::uint64_t fell_back = 0;     // packets with a group none of whose ports could take them
  // Flows (with flowlets) that chose another port than theirs because a congestion notification
  // named it (ar_congestion_notification.h), and when the first did.
  std::uint64_t notified_moves = 0;
  Time first_notified_move = kTimeNever;
};

class AdaptiveSelector {
 public:
  explicit AdaptiveSelector(Switch& sw);

  // The decision for `p`, arrived on `in`, whose AR group is `group`: the chosen port and its VL
  // (counted), or with none of the group's ports able to take it the LFT's port, else `fallback`.
  RouteDecision choose(PortNum in, const Packet& p, std::uint16_t group, PortNum fallback);
  // A port of `group` that could take `p` now (the first in port order; nothing is counted), else
  // `fallback` (0: none).
  PortNum any_port(PortNum in, const Packet& p, std::uint16_t group, PortNum fallback = 0) const;

  const ArStats& stats() const { return stats_; }
  // Packets the choice sent out of port `out`.
  std::uint64_t chosen(PortNum out) const { return out >= 1 && out <= chosen_.size() ? chosen_[out - 1] : 0; }

 private:
  struct Flowlet {
    Time last = 0;
    PortNum port = 0;
  };
  // Whether port `out` can take packets for `dlid` now (cabled, Active, not excluded by a fault
  // notification).
  bool port_usable(PortNum out, Lid dlid) const;
  RouteDecision chose(std::uint16_t group, PortNum lft_port, PortNum out, std::uint8_t out_vl);

  Switch& sw_;
  std::vector<PortNum> last_;  // [group]: the port chosen last (the round robin's position)
  std::unordered_map<std::uint32_t, Flowlet> flowlets_;  // by SLID << 16 | DLID
  std::vector<ArCandidate> candidates_;  // scratch
  std::vector<std::uint8_t> candidate_vls_;
  std::vector<std::uint64_t> chosen_;  // [out - 1]
  ArStats stats_;
};

}  // namespace ibfsim
