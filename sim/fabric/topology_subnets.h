// The subnets of a topology: routers split it. A subnet is what one subnet manager sees: switches
// joined by switch-to-switch cables, with the HCA ports and router ports cabled to them (or an HCA
// port and a router port cabled back to back). Each router port is an end port of the subnet its
// cable leads into, as an HCA port is; a router forwards between its ports' subnets by the GRH's
// destination GID (sim/network/router.h), whose 64-bit subnet prefix names the subnet.
//
// Subnets are numbered by the first node, in declaration order, with a port (or, a switch, itself)
// in them. Subnet prefixes: a topology without routers is one subnet with the link-local prefix
// fe80::/64 (as OpenSM's default subnet_prefix); with routers subnet i gets fec0:0:0:i::/64
// (site-local, 0xfec0000000000000 + i), so that every subnet's GIDs differ.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/fabric/topology.h"

namespace ibfsim {

constexpr std::uint64_t kLinkLocalSubnetPrefix = 0xfe80000000000000ull;
constexpr std::uint64_t kSiteLocalSubnetPrefix = 0xfec0000000000000ull;
constexpr int kNoSubnet = -1;

struct TopologySubnets {
  // [node][port] -> subnet (ports 0..num_ports; a switch's port 0 and every port of it share the
  // switch's); kNoSubnet for uncabled HCA or router ports.
  std::vector<std::vector<int>> of_port;
  std::vector<std::uint64_t> prefix;  // per subnet
  // Per subnet, the nodes in it (a router is in every subnet one of its ports is), ascending.
  std::vector<std::vector<std::size_t>> nodes;

  std::size_t count() const { return prefix.size(); }
  // The subnet of a switch or an HCA's port 1 (routers: per port).
  int of(std::size_t node, unsigned port = 1) const { return of_port.at(node).at(port); }
};

// Requires a validated topology.
TopologySubnets topology_subnets(const Topology& topo);

}  // namespace ibfsim
