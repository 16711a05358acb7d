// The routing unit of an Ethernet L3 switch, as pure functions of a frame's bytes and the switch's
// forwarding state: where a frame goes (the longest matching route, ECMP among its next hops), and
// how it changes on the way (the next hop's MAC as destination, the output port's as source, TTL or
// Hop Limit one less, IPv4 checksum and FCS recomputed). RoCE v2's ICRC masks exactly the IP fields
// this touches, so a routed RoCE frame keeps its ICRC. Everything it reads lies in the first
// l3_decision_bytes() of the frame: a cut-through switch can decide once they are in.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/ethernet/ethernet_header.h"
#include "sim/ethernet/route_table.h"

namespace ibfsim {

enum class L3Verdict : std::uint8_t {
  kForward,
  kNotIp,        // neither IPv4 (without options) nor IPv6, or shorter than its headers
  kNoRoute,      // no prefix contains the destination
  kTtlExpired,   // TTL or Hop Limit 0 or 1: forwarding would make it 0
};
const char* l3_verdict_name(L3Verdict v);

struct L3Decision {
  L3Verdict verdict = L3Verdict::kNotIp;
  PortNum port = 0;  // when kForward
};

// Bytes of a frame the decision reads: Ethernet header (and tag), IP header, UDP ports.
std::size_t l3_decision_bytes(const std::uint8_t* frame, std::size_t len);

// The decision for a frame (destination MAC onwards, at least l3_decision_bytes of it). A route
// with several next hops takes one by the 5-tuple (ecmp.h) when the frame is UDP, the first
// otherwise.
L3Decision l3_decide(const std::uint8_t* frame, std::size_t len, const RouteTable& routes, std::uint32_t ecmp_seed);

// Rewrites a frame (destination MAC .. FCS) for its next hop: MACs, TTL/Hop Limit less one (with
// the IPv4 checksum), FCS. Precondition: l3_decide said kForward.
void l3_rewrite(std::vector<std::uint8_t>& frame, const MacAddress& src, const MacAddress& next_hop);
// The same for an Ethernet frame held in a Packet (its header rewritten, its FCS recomputed over
// header, payload, pad, ICRC and Ethernet pad; an elided payload counts as zeros).
void l3_rewrite(Packet& p, const MacAddress& src, const MacAddress& next_hop);

// The FCS of an Ethernet frame held in a Packet, over everything before it.
std::uint32_t packet_fcs(const Packet& p);

// The priority (0-7) an L3 switch queues a frame on: the 802.1Q tag's PCP when tagged, otherwise
// the top three bits of the IP DSCP (the class selector); 0 for a frame that is not IP.
std::uint8_t frame_priority(const std::uint8_t* frame, std::size_t len);

}  // namespace ibfsim
