#include "sim/fabric/topology_subnets.h"

#include <algorithm>
#include <numeric>

namespace ibfsim {

TopologySubnets topology_subnets(const Topology& topo) {
  const std::size_t num_nodes = topo.nodes.size();
  // One element per switch and one per HCA or router port; union-find over the cables.
  std::vector<std::size_t> base(num_nodes + 1, 0);
  for (std::size_t n = 0; n < num_nodes; ++n)
    base[n + 1] = base[n] + (topo.nodes[n].type == NodeType::kSwitch ? 1 : topo.nodes[n].num_ports);
  auto element = [&](std::size_t node, unsigned port) {
    return topo.nodes[node].type == NodeType::kSwitch ? base[node] : base[node] + port - 1;
  };
  std::vector<std::size_t> parent(base[num_nodes]);
  std::iota(parent.begin(), parent.end(), std::size_t{0});
  auto find = [&](std::size_t x) {
    while (parent[x] != x) x = parent[x] = parent[parent[x]];
    return x;
  };
  std::vector<std::vector<bool>> cabled(num_nodes);
  for (std::size_t n = 0; n < num_nodes; ++n) cabled[n].assign(topo.nodes[n].num_ports + 1, false);
  for (const TopoCable& c : topo.cables) {
    const std::size_t a = find(element(c.node_a, c.port_a)), b = find(element(c.node_b, c.port_b));
    if (a != b) parent[std::max(a, b)] = std::min(a, b);
    cabled[c.node_a][c.port_a] = cabled[c.node_b][c.port_b] = true;
  }
  TopologySubnets s;
  s.of_port.resize(num_nodes);
  std::vector<int> number(parent.size(), kNoSubnet);
  for (std::size_t n = 0; n < num_nodes; ++n) {
    const TopoNode& node = topo.nodes[n];
    s.of_port[n].assign(node.num_ports + 1, kNoSubnet);
    for (unsigned p = node.type == NodeType::kSwitch ? 0 : 1; p <= node.num_ports; ++p) {
      if (node.type != NodeType::kSwitch && !cabled[n][p]) continue;
      int& k = number[find(element(n, p == 0 ? 1 : p))];
      if (k == kNoSubnet) {
        k = static_cast<int>(s.nodes.size());
        s.nodes.emplace_back();
      }
      s.of_port[n][p] = k;
      if (s.nodes[static_cast<std::size_t>(k)].empty() || s.nodes[static_cast<std::size_t>(k)].back() != n)
        s.nodes[static_cast<std::size_t>(k)].push_back(n);
    }
    if (node.type == NodeType::kSwitch)
      std::fill(s.of_port[n].begin(), s.of_port[n].end(), s.of_port[n][0]);
  }
  const bool routed = !topo.routers().empty();
  for (std::size_t i = 0; i < s.nodes.size(); ++i)
    s.prefix.push_back(routed ? kSiteLocalSubnetPrefix + i : kLinkLocalSubnetPrefix);
  return s;
}

}  // namespace ibfsim
