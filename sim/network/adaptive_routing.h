// A switch's adaptive routing state as the SMA programs it (AdaptiveRoutingInfo, GroupTable and
// AR LFT: subnet_manager/mad/adaptive_routing.h), and the choice among a group's ports as a pure
// function (docs/adaptive_routing.md).
//
// The choice, for a packet whose SL is enabled and whose DLID has a group: among the group's ports
// that can take it now (cabled, Active, not excluded by a routing notification, its SL mapping to a
// VL the port operates, its payload within the port's MTU):
//   1. the most free credits on the VL the packet would take there: the credits the port has, less
//      the 64-byte blocks already queued in this switch for that port and VL (promised to packets
//      waiting), counted in levels of far buffer / credit_levels blocks (credit_levels 0: every
//      block counts; 2, the default: whether at least half the next switch's buffer is free);
//   2. with flowlets, the port the packet's flow had last (a flow stays where it is unless another
//      port is `flowlet_margin` levels better or more: a hysteresis, so that a flow does not leave
//      a port for one that is only a little freer);
//   3. the fewest blocks already queued in this switch for that port and VL;
//   4. the first port after the one this group chose last, in cyclic port order (round robin, so
//      ties spread evenly and every run makes the same choices).
// With a flowlet gap, a flow (SLID, DLID) keeps the port it was given, without choosing, while its
// packets come closer together than the gap, and chooses afresh after a longer silence.
// Before all of these, a port a congestion notification named for the packet's DLID
// (ar_congestion_notification.h) ranks below every other while the notification holds.
#pragma once
#include <bitset>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/time.h"

namespace ibfsim {

struct ArSettings {
  bool enabled = false;
  bool fast_recovery = false;  // routing notifications on port failure (fault_notification.h)
  std::uint16_t sl_mask = 0;   // bit s: packets on SL s route adaptively
  Time flowlet_gap = 0;        // 0: every packet chooses
  std::uint8_t credit_levels = 2;  // free credits compared in levels of far buffer / this (0: exactly)
  std::bitset<256> notify_ports;   // ports whose far end is a switch: fault notifications go there
  // Congestion notifications (ar_congestion_notification.h): an output queue of this many blocks
  // notifies the switch upstream (0: never), which ranks that port last for the DLID for `hold`.
  std::uint16_t congestion_threshold = 0;
  Time congestion_hold = 0;
  std::uint8_t flowlet_margin = 1;  // a flow leaves its port only for one this many levels better
};

class ArTable {
 public:
  const ArSettings& settings() const { return settings_; }
  void set_settings(const ArSettings& s) { settings_ = s; }
  // The ports of group g (1..), ascending; empty when unset.
  void set_group(std::uint16_t g, std::vector<PortNum> ports);
  const std::vector<PortNum>& group(std::uint16_t g) const { return g < groups_.size() ? groups_[g] : empty_; }
  std::size_t group_slots() const { return groups_.size(); }
  void set_group_of(Lid lid, std::uint16_t g);
  std::uint16_t group_of(Lid lid) const { return lid < group_of_lid_.size() ? group_of_lid_[lid] : 0; }

  // The group a packet to `dlid` on `sl` chooses among (0: none, the LFT decides).
  std::uint16_t applies(Lid dlid, std::uint8_t sl) const {
    if (!settings_.enabled || !(settings_.sl_mask >> sl & 1)) return 0;
    const std::uint16_t g = group_of(dlid);
    return group(g).empty() ? 0 : g;
  }

 private:
  ArSettings settings_;
  std::vector<std::vector<PortNum>> groups_;  // [group]
  std::vector<std::uint16_t> group_of_lid_;   // [LID]
  std::vector<PortNum> empty_;
};

// One port of a group that can take the packet, with what the choice weighs.
struct ArCandidate {
  PortNum port = 0;
  std::int64_t level = 0;           // its free credits' level (ar_credit_level)
  std::uint32_t queued_blocks = 0;  // already waiting in this switch for that port and VL
  bool penalized = false;           // a congestion notification ranks it last for the DLID
};

// The level of a port with `credits` on the VL, `queued` blocks waiting for it and a far buffer of
// `far_buffer` blocks: floor((credits - queued) x levels / far_buffer), or credits - queued with
// levels 0.
std::int64_t ar_credit_level(std::uint32_t credits, std::uint32_t queued, std::uint32_t far_buffer, unsigned levels);

// The index of the candidate chosen (see above: first not penalized, then the rest); `last` is the group's previous choice (0: none),
// `keep` the flow's port with flowlets (0: none), which another port as little penalized displaces
// only when its level is `margin` (>= 1) or more above keep's. Requires n >= 1.
std::size_t ar_choose(const ArCandidate* c, std::size_t n, PortNum last, PortNum keep = 0, unsigned margin = 1);

}  // namespace ibfsim
