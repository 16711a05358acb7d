// The diameter of a topology (topology_diameter.h): breadth-first searches over the switch graph,
// one per distinct set of switches hosts are cabled to (hosts on the same switches are as far from
// everything as each other), rather than one per host.
#include "sim/fabric/topology_diameter.h"

#include <algorithm>
#include <map>

#include "sim/fabric/hop_graph.h"

namespace ibfsim {

namespace {

constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

}  // namespace

void compute_diameter(const Topology& topo, const Topology::PortCables& cables_at, TopologySummary& s) {
  const std::vector<std::size_t> switches = topo.switches();
  std::vector<std::size_t> switch_index(topo.nodes.size(), kNone);
  for (std::size_t i = 0; i < switches.size(); ++i) switch_index[switches[i]] = i;
  HopGraph g(switches.size());
  for (const TopoCable& c : topo.cables) {
    if (switch_index[c.node_a] != kNone && switch_index[c.node_b] != kNone) {
      boost::add_edge(switch_index[c.node_a], switch_index[c.node_b], g);
    }
  }
  // Hosts grouped by the set of switches they are cabled to.
  std::map<std::vector<std::size_t>, std::vector<std::size_t>> groups;
  for (std::size_t h : topo.hcas()) {
    std::vector<std::size_t> attached;
    bool cabled = false;
    for (unsigned p = 1; p <= topo.nodes[h].num_ports; ++p) {
      if (!cables_at[h][p]) continue;
      cabled = true;
      const PortRef peer = topo.cables[*cables_at[h][p]].far_end(h);
      if (switch_index[peer.node] != kNone) attached.push_back(switch_index[peer.node]);
    }
    if (!cabled) continue;
    std::sort(attached.begin(), attached.end());
    attached.erase(std::unique(attached.begin(), attached.end()), attached.end());
    groups[attached].push_back(h);
  }
  std::vector<std::pair<const std::vector<std::size_t>*, const std::vector<std::size_t>*>> list;
  for (const auto& [attached, hosts] : groups) list.emplace_back(&attached, &hosts);

  for (std::size_t a = 0; a < list.size(); ++a) {
    const auto& [sources, hosts_a] = list[a];
    const std::vector<unsigned> dist = sources->empty() ? std::vector<unsigned>() : distances_from(g, *sources);
    for (std::size_t b = a; b < list.size(); ++b) {
      const auto& [targets, hosts_b] = list[b];
      const std::size_t pairs = a == b ? hosts_a->size() * (hosts_a->size() - 1) / 2 : hosts_a->size() * hosts_b->size();
      if (pairs == 0) continue;
      unsigned d = kHopsUnreached;
      for (std::size_t t : *targets)
        if (!dist.empty()) d = std::min(d, dist[t]);
      if (d == kHopsUnreached) {
        s.unreachable_host_pairs += pairs;
        continue;
      }
      const unsigned switches = d + 1;
      if (!s.diameter || switches > s.diameter->switches) {
        s.diameter = HostDistance{switches, hosts_a->front(), a == b ? (*hosts_a)[1] : hosts_b->front()};
      }
    }
  }
}

}  // namespace ibfsim
