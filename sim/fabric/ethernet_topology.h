// A topology (file or generator) as an Ethernet L3 fabric for `fabric: roce`: its switches become
// L3 switches, its HCAs hosts with one Ethernet port, its cables Ethernet links; the addresses and
// the routes (shortest paths, ECMP over every equal-cost next hop) are the plan's
// (ethernet/ethernet_fabric_plan.h). Static: no subnet manager, nothing learnt at run time.
#pragma once
#include <cstdint>

#include "sim/ethernet/ethernet_fabric_plan.h"
#include "sim/fabric/topology.h"

namespace ibfsim {

// Throws InputError naming the node or cable (file:line:col) when the topology is not one an
// Ethernet fabric of the plan can be: routers, an HCA with other than one cabled port, an HCA
// cabled to an HCA, more than 250 switches, a switch with more than 250 ports.
EthernetFabricPlan ethernet_plan_from_topology(const Topology& topo, std::uint64_t seed);

}  // namespace ibfsim
