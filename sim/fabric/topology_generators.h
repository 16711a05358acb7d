// Generated topologies: regular fabrics described by a few numbers instead of listed cables.
// The closed-form node, cable and port counts of every generator are in topologies/README.md.
//
// Common to every generator:
// * Nodes come in this order: the HCAs h1..hN (so that, with one port per HCA, hI gets LID I), then
//   the switches, group by group as each generator says.
// * HCAs have defaults.hca_ports ports; the generator cables port 1 (the fat tree: ports 1..w1).
//   Every other setting of a node (latency, buffer credits, data VLs, VL15 credits, enabled speeds
//   and widths on every port) and every cable (rate, length) comes from defaults; per-port speed and
//   width sets are filled in (num_ports + 1 entries). GUIDs are default_guid(type, index, ports
//   beyond the first of the HCAs before); marks are empty.
// * Switches have defaults.switch_ports ports if set (it must be large enough), otherwise the most
//   any switch of that fabric needs, the same for all (leaf_spine alone sizes each role on its own).
// * Invalid parameters throw std::invalid_argument whose message completes "expected ...", e.g.
//   "at most 254 ports per switch, got switches needing 300": zero counts, a switch needing more
//   than kMaxPorts ports, or a fabric with more than kLidUnicastMax LIDs (HCA ports + switches).
#pragma once
#include <vector>

#include "sim/fabric/topology.h"

namespace ibfsim {

// A rail-optimised two-level fat tree: `nodes` servers of `rails` HCAs each (one per GPU), HCA k of
// every server on a leaf of rail k. Nodes in this order: hosts n1r1..n1rR, n2r1, ... (server by
// server, named n<server>r<rail>, single-port), then the leaves rail by rail (r1leaf1,
// r1leaf2, ..., r2leaf1, ...: nodes / nodes_per_leaf leaves per rail), then spine1..spineS.
// Leaf j of rail k serves servers j*nodes_per_leaf+1 .. (j+1)*nodes_per_leaf: its port i (1-based,
// i <= nodes_per_leaf) goes to port 1 of that range's i-th server's HCA k. Each leaf has as many
// uplinks as hosts (non-blocking), ports nodes_per_leaf+1 .. 2*nodes_per_leaf, spread evenly:
// uplink u (0-based) goes to spine u mod S, which sees each leaf nodes_per_leaf / S times; spine s
// port (leaf index L over all leaves) L * (nodes_per_leaf / S) + u / S + 1. Errors: nodes not a
// multiple of nodes_per_leaf, nodes_per_leaf not a multiple of spines. Every server is a
// TopoServer n<i> with its HCAs in rail order. Counts: nodes*rails hosts,
// rails*nodes/nodes_per_leaf leaves of 2*nodes_per_leaf ports, spines of
// leaves*nodes_per_leaf/spines ports, 2*nodes*rails cables.
Topology generate_rail_fat_tree(unsigned nodes, unsigned rails, unsigned nodes_per_leaf, unsigned spines,
                                const TopologyDefaults& defaults);

// A two-level fat tree (leaf-spine). Nodes in this order: hosts h1..hN (N = leaves * hosts_per_leaf,
// numbered leaf by leaf), then switches leaf1..leafL, then spine1..spineS. Leaf l ports
// 1..hosts_per_leaf go to its hosts (port 1 of each), ports hosts_per_leaf+1.. go to spine 1, 2, ...
// in order; spine port l goes to leaf l. Every leaf is cabled to every spine exactly once.
// Switches have defaults.switch_ports ports if set, otherwise exactly what they need
// (leaves hosts_per_leaf + spines, spines leaves). Links, latencies, credits and propagation come
// from defaults; GUIDs are default_guid as for generated fabrics; marks are left empty.
// Throws std::invalid_argument ("expected ..., got ...") for zero counts or when a switch would
// need more ports than it has (or than kMaxPorts).
Topology generate_leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf,
                             const TopologyDefaults& defaults);

// An extended generalized fat tree XGFT(h; m1..mh; w1..wh), h = m.size() = w.size() >= 1.
// Level 0 holds the hosts, levels 1..h the switches. A level-i node is labelled
// (a_h..a_{i+1}, b_i..b_1) with a_j < m_j, b_j < w_j; it has m_i children (its down ports 1..m_i,
// port a+1 to the child whose digit i is a) and w_{i+1} parents (up ports m_i+1..m_i+w_{i+1}; a host's
// up ports are 1..w1), parent b having digit i+1 replaced by b. Within a level nodes are numbered by
// their label read as a mixed-radix number, a_h most significant, so a leaf's hosts are consecutive.
// Switch names by level: leaf1.., spine1.., core1.., then l4sw1.., l5sw1.., ...
// Counts: N_i = prod_{j>i} m_j * prod_{j<=i} w_j nodes on level i (N_0 hosts), cables
// sum_{i<h} N_i * w_{i+1}, switch ports max_i (m_i + w_{i+1}) with w_{h+1} = 0.
// Hosts need w1 ports: defaults.hca_ports must be at least w1.
Topology generate_xgft(const std::vector<unsigned>& m, const std::vector<unsigned>& w,
                       const TopologyDefaults& defaults);

// The k-ary n-tree: XGFT(n; k, ..., k; 1, k, ..., k). k^n hosts, n * k^(n-1) switches of 2k ports
// (the top level uses k of them), n * k^n cables.
Topology generate_kary_ntree(unsigned k, unsigned n, const TopologyDefaults& defaults);

// The largest full-bisection fat tree of `levels` levels built from radix-port switches (radix
// even): XGFT(levels; r/2, ..., r/2, r; 1, r/2, ..., r/2) with r = radix, i.e. a k-ary n-tree with
// k = r/2 whose top level uses all r ports. With k = r/2 and n = levels: 2 k^n hosts,
// (2n - 1) k^(n-1) switches of r ports, 2n k^n cables.
// radix 36: 2 levels = 648 hosts, 54 switches; 3 levels = 11,664 hosts, 1,620 switches.
Topology generate_fat_tree_radix(unsigned radix, unsigned levels, const TopologyDefaults& defaults);

// A mesh (torus = false) or torus (true) of switches with dims.size() = 1..3 dimensions, each of
// size >= 2, and hosts_per_switch hosts on each switch. Switches are named by their 0-based
// coordinates, sw<x>, sw<x>_<y> or sw<x>_<y>_<z>, and numbered with the last coordinate fastest;
// switch s holds hosts h(s*p+1)..h(s*p+p). Ports: 1..p hosts, then for dimension i (0-based)
// port p+2i+1 to the +1 neighbour and p+2i+2 to the -1 neighbour (the torus wraps around; in a
// mesh the ports facing outwards stay uncabled). In a torus of size 2 along a dimension the two
// switches are joined by two cables.
// Counts with S = prod dims: S switches of p + 2 dims.size() ports, S*p hosts; cables S*p plus,
// per dimension i, S (torus) or S / d_i * (d_i - 1) (mesh).
Topology generate_mesh(const std::vector<unsigned>& dims, unsigned hosts_per_switch, bool torus,
                       const TopologyDefaults& defaults);

// A dragonfly: g groups of a routers each, p hosts on every router, h global ports per router.
// groups == 0 means the largest, a*h + 1, where every pair of groups is joined by exactly one
// global cable; otherwise 2 <= groups <= a*h + 1 and every pair of groups is joined by
// c = floor(a*h / (groups - 1)) global cables (global ports left over stay uncabled).
// Routers are named g<G>r<R> (1-based) group by group; router R of group G holds the next p hosts.
// Router ports: 1..p hosts; p+1..p+a-1 the other routers of its group, ascending (a complete graph);
// p+a..p+a+h-1 global. Global slot j = r*h + t (router r, global port t) of group i serves peer
// group number j mod (groups-1) in i's ascending list of the other groups, copy j div (groups-1).
// Counts: g*a routers of p + a - 1 + h ports, g*a*p hosts, cables g*a*p + g*a*(a-1)/2 +
// c * g*(g-1)/2.
Topology generate_dragonfly(unsigned a, unsigned p, unsigned h, unsigned groups, const TopologyDefaults& defaults);

// A hypercube of 2^dim switches, named sw<label> with the label in dim binary digits (sw000..sw111
// for dim 3) and numbered by label; switch s holds hosts h(s*p+1)..h(s*p+p). Ports: 1..p hosts,
// p+1+i to the switch whose label differs in bit i (the same port number at both ends).
// Counts: 2^dim switches of p + dim ports, 2^dim * p hosts, 2^dim * p + dim * 2^(dim-1) cables.
Topology generate_hypercube(unsigned dim, unsigned hosts_per_switch, const TopologyDefaults& defaults);

}  // namespace ibfsim
