// The directed-route walk of an SMP (IBA Vol1 14.2.2, rule R39), as pure functions over an Smp.
//
// The requester sets HopCount = N (at most 63), HopPointer = 0, D = 0 and InitialPath[1..N] = the
// port to leave by at each hop. Going out (D = 0), a node that receives the SMP on port p with
// 1 <= HopPointer < HopCount (switches only) records ReturnPath[HopPointer] = p, increments
// HopPointer and sends it out InitialPath[HopPointer]. At HopPointer == HopCount the directed part
// ends: the node records ReturnPath[HopCount] = p, increments HopPointer to HopCount + 1 and
// processes the SMP (DrDLID = 0xFFFF) or, a switch, LID-routes it on to DrDLID. The response has
// D = 1 and walks back: HopPointer is decremented and the SMP leaves by ReturnPath[HopPointer],
// until at HopPointer 1 -> 0 it is back at the requester's node, which gives it to its SM
// (DrSLID = 0xFFFF) or, a switch, LID-routes it on to DrSLID.
//
// A path can start with a LID-routed part (the SM sends the SMP by LID to the switch where the
// directed part starts, HopPointer still 0, DrSLID = the SM's LID) and end with one (DrDLID = the
// destination's LID). A responder reached through a final LID-routed part sends its response by
// LID to the request's LRH SLID (the switch that ended the directed part), which then calls
// dr_route on it as a local arrival; it does not call dr_route itself.
//
// Step numbers in comments are the IBA compliance statements C14-9 (outgoing) and C14-13
// (returning), as numbered in the Linux kernel's drivers/infiniband/core/smi.c.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

// What a node does with a directed-route SMP.
enum class DrAction : std::uint8_t {
  kForward,     // send it out `port`
  kProcess,     // this node is the destination: give it to the local SMA (D = 0) or SM (D = 1)
  kRouteByLid,  // a LID-routed part follows: send it by LID to `lid` (DrDLID or DrSLID)
  kDrop,        // discard silently; `reason` says why
};

// Why a node discards a directed-route SMP.
enum class DrDropReason : std::uint8_t {
  kNone,
  kNotDirectedRoute,  // MgmtClass is not 0x81
  kHopCountTooLarge,  // HopCount > 63: the paths have no room
  kBadHopPointer,     // HopPointer fits no step of the walk, or disagrees with where it came from
  kNotASwitch,        // only a switch may pass an SMP on or start a LID-routed part
  kBadPort,           // the path names port 0 or a port the node does not have
};

// One step's verdict. `port` is set for kForward, `lid` for kRouteByLid, `reason` for kDrop.
struct DrDecision {
  DrAction action = DrAction::kDrop;
  PortNum port = 0;
  Lid lid = 0;
  DrDropReason reason = DrDropReason::kNone;

  bool operator==(const DrDecision& o) const {
    return action == o.action && port == o.port && lid == o.lid && reason == o.reason;
  }
};

// The node handling the SMP: switches forward, CAs and routers only originate and terminate.
// `num_ports` is the number of physical ports (a switch's port 0 is its management port and never
// an egress of the walk).
struct DrNode {
  bool is_switch = false;
  PortNum num_ports = 1;
};

// arrival_port for an SMP that did not come in over a link as a directed-route hop: originated
// here (the SM's request, the SMA's response) or delivered to this node by LID routing (LRH DLID
// one of its own LIDs rather than the permissive LID).
constexpr PortNum kDrLocal = 0;

// Applies one node's step of the walk to `smp` (HopPointer and ReturnPath are updated in place)
// and says where it goes next. Direction comes from smp.direction.
DrDecision dr_route(Smp& smp, const DrNode& node, PortNum arrival_port);

// A pure directed-route request (DrSLID = DrDLID = 0xFFFF) along `path`, the egress port at each
// hop (path[0] is InitialPath[1]); HopCount = path.size(). Throws std::invalid_argument for more
// than 63 hops.
Smp make_dr_request(std::uint8_t method, std::uint16_t attribute_id, std::uint32_t attribute_modifier,
                    std::uint64_t transaction_id, const std::vector<PortNum>& path,
                    std::uint64_t m_key = 0);

}  // namespace ibfsim
