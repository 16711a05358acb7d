// LIDs and linear forwarding tables computed directly from the topology, standing in for the
// subnet manager until it exists (and afterwards a reference to compare its result with).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/fabric/topology.h"
#include "sim/network/lft.h"  // kNoRoute

namespace ibfsim {

// LID assignment (LMC 0): HCA ports first, HCAs in declaration order and each HCA's ports
// ascending, get LIDs 1, 2, ... (cabled or not); then each switch, in declaration order, gets one
// LID for its management port 0.
// Routing: min-hop over switches only, balanced like OpenSM's minhop engine. For each switch and
// each LID in ascending order, the candidates are the ports whose cable leads one hop closer to the
// LID's port (to a switch one hop nearer, or straight to it); the candidate with the fewest LIDs
// routed through it so far on that switch wins, ties going to the lowest port number. A switch
// routes its own LID to port 0; unreachable LIDs get kNoRoute.
struct StaticRouting {
  // [node][port], sized num_ports + 1. HCA ports 1..n hold their LIDs (index 0 unused, 0); a switch
  // holds its LID at index 0 and 0 elsewhere.
  std::vector<std::vector<Lid>> port_lid;
  // [node] for switches: egress port per DLID, indices 0..lft_top (entry 0 is kNoRoute); empty for
  // HCAs.
  std::vector<std::vector<std::uint8_t>> lft;
  // The highest LID assigned.
  Lid lft_top = 0;
  // [lid] -> the port that owns it, indices 0..lft_top (entry 0 unused).
  std::vector<PortRef> lid_owner;
};

// Requires a topology that passed validate_topology. Throws InputError if the fabric has more
// ports than unicast LIDs (0xBFFF).
StaticRouting compute_static_routing(const Topology& topo);

// The number of switch levels when the fabric is a layered tree (the switches with hosts are
// level 1, every other switch one more than its nearest neighbour nearer the hosts, and every
// switch-to-switch cable joins adjacent levels), else 0. Min-hop routes balanced per switch, as
// above, are balanced on two levels (a leaf-spine) but not on three or more: each switch spreads
// the LIDs over its own up-ports without regard to what the switches below chose, so some
// top-level ports carry many times their share and the fabric saturates early. The subnet
// manager's ftree engine routes such trees evenly.
std::size_t tree_switch_levels(const Topology& topo);

}  // namespace ibfsim
