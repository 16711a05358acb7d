// What `ibfsim topo` prints about a fabric: counts, radix use, diameter, a bisection estimate and
// warnings about things that are legal but probably not meant.
//
// Definitions:
// - hosts: HCAs with at least one cable.
// - radix use: per switch type (switches with the same port count), cabled ports / all ports.
// - diameter: the largest number of switches a packet crosses between two hosts on a shortest
//   path that passes only through switches (hosts on one switch: 1 switch, 0 switch-to-switch
//   hops; a leaf-spine fat tree: 3 switches, 2 hops). Printed as both. Breadth-first searches (Boost.Graph) over the switch graph, one
//   per distinct set of switches hosts are cabled to. HCA-to-HCA cables are not paths.
// - bisection: the fewest cables to cut so that the hosts fall into two halves (floor(N/2) and
//   ceil(N/2)), switches placed freely; also as data rate (the cut cables' rates summed) and as a
//   fraction of full bisection (floor(N/2) host links), when all host links share one rate.
//     * exact for a two-level fat tree (every host on one leaf, H hosts per leaf, every leaf
//       cabled m times to every spine, one rate; a single switch counts): the cut is a concave
//       function of how many hosts of each leaf go to one side, so its minimum has every leaf's
//       hosts all on one side but at most one leaf; enumerating the number of spines on that side
//       (0..S) and of whole leaves (0..L) finds it in O(S L).
//     * otherwise a heuristic, an upper bound: the smaller of (a) the first floor(N/2) hosts
//       alone (their cables cut) and (b) for a start at the first host and at the host farthest
//       from it, clusters (a switch with the hosts cabled only to it; other hosts alone) in
//       breadth-first order fill side A up to floor(N/2) hosts (hosts of one more cluster make up
//       any shortfall), then Kernighan-Lin passes move clusters without hosts and swap clusters
//       with equally many hosts while that cuts fewer cables.
#pragma once
#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/fabric/topology.h"

namespace ibfsim {

struct RadixUse {
  unsigned ports_per_switch = 0;  // the switch type
  std::size_t switches = 0;
  std::size_t ports_used = 0;     // cabled ports over all switches of the type
  std::size_t ports_total = 0;
};

enum class BisectionMethod { kNone, kFatTreeExact, kHeuristic };

struct BisectionEstimate {
  BisectionMethod method = BisectionMethod::kNone;  // kNone: fewer than 2 hosts
  std::size_t cables = 0;
  double gbps = 0;                   // data rate of the cut cables, one direction
  std::optional<double> of_full;     // gbps / (floor(N/2) host links), when host links share a rate
};

struct HostDistance {
  unsigned switches = 0;  // switches a packet crosses between them (switch-to-switch hops + 1)
  std::size_t host_a = 0;  // node indices of a pair that far apart
  std::size_t host_b = 0;
};

struct TopologySummary {
  std::size_t hcas = 0;
  std::size_t hosts = 0;  // HCAs with a cable
  std::size_t switches = 0;
  // Routers and the subnets they join (topology_subnets.h), each with its prefix and node count;
  // only shown when there are routers.
  std::size_t routers = 0;
  std::vector<std::pair<std::uint64_t, std::size_t>> subnets;
  std::size_t cables = 0;
  std::size_t host_cables = 0;    // with an HCA at one end
  std::size_t router_cables = 0;  // with a router at one end
  std::size_t switch_cables = 0;  // between two switches
  // (speed, lanes) -> cables, slowest first.
  std::map<std::pair<int, unsigned>, std::size_t> rates;
  std::map<std::uint32_t, std::size_t> lengths_mm;
  std::vector<RadixUse> radix;  // by ascending port count
  std::optional<HostDistance> diameter;  // unset with fewer than two hosts that reach each other
  std::size_t unreachable_host_pairs = 0;
  BisectionEstimate bisection;
  // HCAs without a cable, topology_warnings() (a split fabric, links that negotiate down), mixed
  // rates, switches with more host than switch-link bandwidth, names too long for IB.
  std::vector<std::string> warnings;
};

TopologySummary summarize_topology(const Topology& topo);

// The text `ibfsim topo` prints, one fact per line.
std::string format_topology_summary(const Topology& topo, const TopologySummary& s);

}  // namespace ibfsim
