#include "sim/subnet_manager/routing/hop_matrix.h"

#include <algorithm>
#include <deque>

namespace ibfsim {

SwitchIndex::SwitchIndex(const SubnetGraph& g) : of(g.nodes.size(), kNoSubnetNode) {
  node = g.switches();
  std::sort(node.begin(), node.end(), [&](std::size_t a, std::size_t b) {
    return guid_table_order(g.nodes[a].node_guid) < guid_table_order(g.nodes[b].node_guid);
  });
  for (std::size_t i = 0; i < node.size(); ++i) of[node[i]] = i;
}

HopMatrix::HopMatrix(std::size_t switches, unsigned max_ports)
    : switches_(switches), width_(max_ports + 1), data_(switches * switches * (max_ports + 1), kNoHops) {}

std::uint8_t HopMatrix::least(std::size_t s, std::size_t t) const {
  const std::uint8_t* row = &data_[at(s, t)];
  return *std::min_element(row, row + width_);
}

unsigned max_switch_ports(const SubnetGraph& g) {
  unsigned m = 0;
  for (const SubnetNode& n : g.nodes)
    if (n.is_switch()) m = std::max(m, n.num_ports());
  return m;
}

std::vector<std::vector<std::uint8_t>> switch_distances(const SubnetGraph& g, const SwitchIndex& sw) {
  const std::size_t n = sw.size();
  std::vector<std::vector<std::uint8_t>> dist(n, std::vector<std::uint8_t>(n, kNoHops));
  std::deque<std::size_t> queue;
  for (std::size_t s = 0; s < n; ++s) {
    dist[s][s] = 0;
    queue.assign(1, s);
    while (!queue.empty()) {
      const std::size_t u = queue.front();
      queue.pop_front();
      for (const SubnetPort& p : g.nodes[sw.node[u]].ports) {
        if (!p.peer || !sw.is_switch(p.peer->node)) continue;
        const std::size_t v = sw.of[p.peer->node];
        if (dist[s][v] != kNoHops) continue;
        dist[s][v] = static_cast<std::uint8_t>(dist[s][u] + 1);
        queue.push_back(v);
      }
    }
  }
  return dist;
}

HopMatrix minhop_hop_matrix(const SubnetGraph& g, const SwitchIndex& sw) {
  const auto dist = switch_distances(g, sw);
  HopMatrix hops(sw.size(), max_switch_ports(g));
  for (std::size_t s = 0; s < sw.size(); ++s) {
    const SubnetNode& node = g.nodes[sw.node[s]];
    hops.set(s, s, 0, 0);
    for (unsigned p = 1; p <= node.num_ports(); ++p) {
      const auto& peer = node.ports[p].peer;
      if (!peer || !sw.is_switch(peer->node)) continue;
      const auto& d = dist[sw.of[peer->node]];
      for (std::size_t t = 0; t < sw.size(); ++t)
        if (d[t] != kNoHops) hops.set(s, t, p, static_cast<std::uint8_t>(d[t] + 1));
    }
  }
  return hops;
}

}  // namespace ibfsim
