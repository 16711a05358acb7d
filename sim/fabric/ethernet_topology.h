// A topology (file or generator) as an Ethernet L3 fabric for `fabric: roce`: its switches become
// L3 switches, its HCAs hosts with one Ethernet port, its cables Ethernet links; the addresses and
// the routes (shortest paths, ECMP over every equal-cost next hop) are the plan's
// (ethernet/ethernet_fabric_plan.h). Static: no subnet manager, nothing learnt at run time.
#pragma once
#include <cstdint>

#include "sim/ethernet/ethernet_fabric_plan.h"
#include "sim/fabric/topology.h"

namespace ibfsim {

// Cable `k`'s own rate and propagation in an Ethernet fabric whose links run `fabric_rate` (the
// scenario's roce.speed and roce.fec): none for a cable without an Ethernet speed (it takes the
// fabric's rate and cable delay); for one with `speed: 25GbE` .. `400GbE`, that speed, FEC as the
// cable (or defaults.link.fec) says, else as `fabric_rate.fec`, and its length x the topology's
// propagation per metre. Throws InputError at the cable (file:line:col) when FEC would be off at a
// speed that requires it (roce.fec false on a 50, 200 or 400GbE cable that says nothing of FEC).
EthernetCableOwn ethernet_cable_own(const Topology& topo, std::size_t k, const EthernetRate& fabric_rate);

// Throws InputError naming the node or cable (file:line:col) when the topology is not one an
// Ethernet fabric of the plan can be: routers, an HCA with other than one cabled port, an HCA
// cabled to an HCA, more than 250 switches, a switch with more than 250 ports; or a cable that
// ethernet_cable_own refuses. Each plan cable carries its own rate and propagation from it.
EthernetFabricPlan ethernet_plan_from_topology(const Topology& topo, std::uint64_t seed,
                                               const EthernetRate& fabric_rate = EthernetRate{});

}  // namespace ibfsim
