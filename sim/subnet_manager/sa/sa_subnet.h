// What the SA answers from: the subnet manager's picture of the subnet after its last sweep (the
// discovered graph with its LIDs, the routing tables, and every node's NodeInfo and PortInfo as it
// last reported them), and the pure lookups and path computation over it. No SystemC.
#pragma once
#include <cstdint>
#include <functional>
#include <optional>

#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/port_info.h"
#include "sim/subnet_manager/routing/routing_tables.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

struct SaSubnet {
  const SubnetGraph& graph;
  const RoutingTables& tables;
  std::function<const NodeInfo*(std::size_t node)> node_info;
  std::function<const PortInfo*(std::size_t node, PortNum port)> port_info;  // nullptr: unknown
};

// The end port holding `lid` (an HCA port, or a switch's port 0); nullopt if none.
std::optional<SubnetPortRef> port_of_lid(const SubnetGraph& g, Lid lid);
// The end port with port GUID `guid` (a switch answers with port 0).
std::optional<SubnetPortRef> port_of_guid(const SubnetGraph& g, Guid guid);

// A port's link rate: lanes (LinkWidthActive) x Gb/s per lane (LinkSpeedExtActive if set, else
// LinkSpeedActive), nominal (4x EDR = 100).
double port_rate_gbps(const PortInfo& pi);

// What the SA knows of the path from end port `src` to `dlid` along the LFTs: every link it
// crosses, and the smallest NeighborMTU and rate among them.
struct SaPath {
  unsigned hops = 0;         // links crossed
  std::uint8_t mtu = 0;      // PortInfo MTU code
  double rate_gbps = 0;
  std::uint8_t sl = 0;       // the routing engine's SL for the path (0 without SLs)
};
// nullopt when the LFTs do not reach `dlid` from `src` (no route, a port not known, a loop).
std::optional<SaPath> trace_path(const SaSubnet& s, SubnetPortRef src, Lid dlid);

}  // namespace ibfsim
