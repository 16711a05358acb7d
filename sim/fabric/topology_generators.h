// Generated topologies: regular fabrics described by a few numbers instead of listed cables.
#pragma once
#include "sim/fabric/topology.h"

namespace ibfsim {

// A two-level fat tree (leaf-spine). Nodes in this order: hosts h1..hN (N = leaves * hosts_per_leaf,
// numbered leaf by leaf), then switches leaf1..leafL, then spine1..spineS. Leaf l ports
// 1..hosts_per_leaf go to its hosts (port 1 of each), ports hosts_per_leaf+1.. go to spine 1, 2, ...
// in order; spine port l goes to leaf l. Every leaf is cabled to every spine exactly once.
// Switches have defaults.switch_ports ports if set, otherwise exactly what they need
// (leaves hosts_per_leaf + spines, spines leaves). Links, latencies, credits and propagation come
// from defaults; GUIDs are default_guid(index); marks are left empty.
// Throws std::invalid_argument ("expected ..., got ...") for zero counts or when a switch would
// need more ports than it has (or than kMaxPorts).
Topology generate_leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf,
                             const TopologyDefaults& defaults);

}  // namespace ibfsim
