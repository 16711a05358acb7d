#include "sim/fabric/topology_subnets.h"

#include <algorithm>

#include "sim/fabric/topology_port_parts.h"

namespace ibfsim {

TopologySubnets topology_subnets(const Topology& topo) {
  const std::size_t num_nodes = topo.nodes.size();
  TopologyPortParts parts(topo);
  std::vector<std::vector<bool>> cabled(num_nodes);
  for (std::size_t n = 0; n < num_nodes; ++n) cabled[n].assign(topo.nodes[n].num_ports + 1, false);
  for (const TopoCable& c : topo.cables) cabled[c.node_a][c.port_a] = cabled[c.node_b][c.port_b] = true;
  TopologySubnets s;
  s.of_port.resize(num_nodes);
  std::vector<int> number(parts.elements(), kNoSubnet);
  for (std::size_t n = 0; n < num_nodes; ++n) {
    const TopoNode& node = topo.nodes[n];
    s.of_port[n].assign(node.num_ports + 1, kNoSubnet);
    for (unsigned p = node.type == NodeType::kSwitch ? 0 : 1; p <= node.num_ports; ++p) {
      if (node.type != NodeType::kSwitch && !cabled[n][p]) continue;
      int& k = number[parts.find(parts.element(n, p == 0 ? 1 : p))];
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
