#include "sim/fabric/static_multicast.h"

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>

#include <algorithm>
#include <set>

namespace ibfsim {

std::vector<Mft> compute_static_multicast(const Topology& topo, const std::vector<MulticastGroup>& groups) {
  std::vector<Mft> mfts(topo.nodes.size());
  if (groups.empty()) return mfts;
  using Graph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
  Graph g(topo.nodes.size());
  for (const TopoCable& c : topo.cables)
    if (topo.nodes[c.node_a].type == NodeType::kSwitch && topo.nodes[c.node_b].type == NodeType::kSwitch)
      boost::add_edge(c.node_a, c.node_b, g);
  // The switch and switch port an HCA hangs off (its port 1).
  auto attach = [&](std::size_t hca) -> std::optional<PortRef> {
    auto k = topo.cable_at(hca, 1);
    if (!k) return std::nullopt;
    return topo.cables[*k].far_end(hca);
  };
  // The port of switch `a` cabled to switch `b` (the lowest-numbered if several).
  auto port_to = [&](std::size_t a, std::size_t b) {
    unsigned best = 0;
    for (const TopoCable& c : topo.cables) {
      if (c.node_a == a && c.node_b == b && (!best || c.port_a < best)) best = c.port_a;
      if (c.node_b == a && c.node_a == b && (!best || c.port_b < best)) best = c.port_b;
    }
    return best;
  };
  for (std::size_t gi = 0; gi < groups.size(); ++gi) {
    const MulticastGroup& grp = groups[gi];
    const Lid mlid = static_cast<Lid>(kMulticastLidBase + gi);
    std::vector<std::set<PortNum>> ports(topo.nodes.size());
    std::vector<std::size_t> ends;
    for (const auto* list : {&grp.members, &grp.senders})
      for (std::size_t h : *list)
        if (auto a = attach(h)) ends.push_back(a->node);
    if (ends.empty()) continue;
    std::vector<std::size_t> pred(topo.nodes.size());
    for (std::size_t i = 0; i < pred.size(); ++i) pred[i] = i;
    const std::size_t root = ends.front();
    boost::breadth_first_search(
        g, boost::vertex(root, g),
        boost::visitor(boost::make_bfs_visitor(boost::record_predecessors(pred.data(), boost::on_tree_edge()))));
    // Tree links from every member's or sender's switch up to the root.
    for (std::size_t s : ends) {
      for (std::size_t v = s; v != root && pred[v] != v; v = pred[v]) {
        ports[v].insert(static_cast<PortNum>(port_to(v, pred[v])));
        ports[pred[v]].insert(static_cast<PortNum>(port_to(pred[v], v)));
      }
    }
    // Members receive; senders need their own port in the entry only to reach the tree (they send
    // into it), so it is listed for members alone.
    for (std::size_t h : grp.members)
      if (auto a = attach(h)) ports[a->node].insert(static_cast<PortNum>(a->port));
    for (std::size_t n = 0; n < topo.nodes.size(); ++n)
      if (!ports[n].empty()) mfts[n].set(mlid, std::vector<PortNum>(ports[n].begin(), ports[n].end()));
  }
  return mfts;
}

}  // namespace ibfsim
