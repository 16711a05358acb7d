// The subnet that an SM on `sm_port` would discover in a topology, built directly from the
// topology file (the offline path of `ibfsim routes --topology`, and a reference for in-band
// discovery to be compared with).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "sim/fabric/topology.h"
#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

// The GUID of port `port` of `node` as the SMA reports it (NodeInfo.PortGUID): an HCA port p has
// node GUID + p (as ConnectX, ibsim and ibnetdiscover have it); a switch has one port GUID, its
// node GUID, whichever port is asked.
Guid topology_port_guid(const TopoNode& node, unsigned port);

struct TopologySubnet {
  SubnetGraph graph;
  // graph node index -> topology node index, and back (kNoSubnetNode for nodes not discovered).
  std::vector<std::size_t> topo_node;
  std::vector<std::size_t> graph_node;
};

// Only what directed-route discovery from the SM port reaches is in the graph: the SM's node, the
// switches connected to it through switch-to-switch links, and the HCAs cabled to those switches
// (an SMP does not pass through an HCA). Nodes appear in topology declaration order; every
// discovered node has all its ports, with peers for cabled ports whose far end is discovered.
// description = node name, system image GUID = node GUID, data_vls = the node's op_vls.
// The SM runs on HCA port `sm_port`, or on a switch's management port 0 (`sm_port` 0).
// Throws InputError (naming the node's file position) if `sm_port` is not a cabled port of HCA
// `sm_node` nor 0 on a switch, or two discovered ports have the same port GUID.
// Requires a topology that passed validate_topology.
TopologySubnet subnet_graph_from_topology(const Topology& topo, std::size_t sm_node, unsigned sm_port = 1);

}  // namespace ibfsim
