#include "sim/fabric/aggregation_tree.h"

#include <algorithm>
#include <deque>
#include <limits>
#include <map>
#include <stdexcept>

namespace ibfsim {

namespace {

constexpr unsigned kFar = std::numeric_limits<unsigned>::max();

// Hop distances from `from` over switch-to-switch cables (HCAs and routers are not crossed).
std::vector<unsigned> switch_distances(const Topology& topo, const Topology::PortCables& pc, std::size_t from) {
  std::vector<unsigned> dist(topo.nodes.size(), kFar);
  std::deque<std::size_t> queue{from};
  dist[from] = 0;
  while (!queue.empty()) {
    const std::size_t n = queue.front();
    queue.pop_front();
    for (const auto& cable : pc[n]) {
      if (!cable) continue;
      const std::size_t m = topo.cables[*cable].far_end(n).node;
      if (topo.nodes[m].type != NodeType::kSwitch || dist[m] != kFar) continue;
      dist[m] = dist[n] + 1;
      queue.push_back(m);
    }
  }
  return dist;
}

}  // namespace

std::size_t AggregationTree::depth() const {
  unsigned deepest = 0;
  for (const auto& n : nodes) deepest = std::max(deepest, n.level);
  return nodes.empty() ? 0 : deepest + 1;
}

std::optional<std::size_t> AggregationTree::find(std::size_t node) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].node == node) return i;
  return std::nullopt;
}

std::string AggregationTree::text(const Topology& topo) const {
  std::string s;
  for (const auto& n : nodes) {
    if (!s.empty()) s += "; ";
    s += topo.nodes[n.node].name + " <- [";
    bool first = true;
    for (std::size_t c : n.children) {
      s += (first ? "" : ", ") + topo.nodes[nodes[c].node].name;
      first = false;
    }
    for (std::size_t h : n.hosts) {
      s += (first ? "" : ", ") + topo.nodes[h].name;
      first = false;
    }
    s += "]";
  }
  return s;
}

AggregationTree aggregation_tree(const Topology& topo, const std::vector<std::size_t>& hosts) {
  if (hosts.empty()) throw std::invalid_argument("an aggregation tree needs at least one host");
  const Topology::PortCables pc = topo.port_cables();
  // Each host's leaf switch.
  std::vector<std::size_t> leaf(hosts.size());
  std::vector<std::size_t> leaves;
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    std::optional<std::size_t> sw;
    for (const auto& cable : pc.at(hosts[i])) {
      if (!cable) continue;
      const std::size_t m = topo.cables[*cable].far_end(hosts[i]).node;
      if (topo.nodes[m].type == NodeType::kSwitch) {
        sw = m;
        break;
      }
    }
    if (!sw) throw std::invalid_argument("host " + topo.nodes[hosts[i]].name + " is cabled to no switch");
    leaf[i] = *sw;
    if (std::find(leaves.begin(), leaves.end(), *sw) == leaves.end()) leaves.push_back(*sw);
  }
  std::sort(leaves.begin(), leaves.end());
  // The root: the switch whose farthest leaf is nearest.
  std::size_t root = leaves.front();
  unsigned best = kFar;
  std::map<std::size_t, std::vector<unsigned>> from_leaf;
  for (std::size_t l : leaves) from_leaf[l] = switch_distances(topo, pc, l);
  for (std::size_t s : topo.switches()) {
    unsigned worst = 0;
    for (std::size_t l : leaves) worst = std::max(worst, from_leaf[l][s]);
    if (worst < best) {
      best = worst;
      root = s;
    }
  }
  if (best == kFar) throw std::invalid_argument("the hosts' leaf switches are not connected through switches");
  const std::vector<unsigned> dist = switch_distances(topo, pc, root);
  // Each leaf's path to the root: parent = lowest-numbered neighbour switch one hop nearer.
  std::map<std::size_t, std::pair<std::size_t, unsigned>> parent;  // switch -> (parent switch, port towards it)
  for (std::size_t l : leaves) {
    std::size_t s = l;
    while (s != root && !parent.count(s)) {
      std::size_t up = kNoTreeNode;
      unsigned port = 0;
      for (unsigned p = 1; p < pc[s].size(); ++p) {
        if (!pc[s][p]) continue;
        const std::size_t m = topo.cables[*pc[s][p]].far_end(s).node;
        if (topo.nodes[m].type == NodeType::kSwitch && dist[m] + 1 == dist[s] && m < up) {
          up = m;
          port = p;
        }
      }
      parent[s] = {up, port};
      s = up;
    }
  }
  // Breadth first from the root, children by switch index.
  AggregationTree tree;
  tree.nodes.push_back({root, kNoTreeNode, 0, {}, {}, 0});
  for (std::size_t i = 0; i < tree.nodes.size(); ++i) {
    for (const auto& [s, up] : parent)  // std::map: increasing switch index
      if (up.first == tree.nodes[i].node) {
        tree.nodes[i].children.push_back(tree.nodes.size());
        tree.nodes.push_back({s, i, up.second, {}, {}, tree.nodes[i].level + 1});
      }
  }
  tree.leaf_of_host.resize(hosts.size());
  for (std::size_t i = 0; i < hosts.size(); ++i) {
    const std::size_t t = *tree.find(leaf[i]);
    tree.leaf_of_host[i] = t;
    tree.nodes[t].hosts.push_back(hosts[i]);
  }
  return tree;
}

}  // namespace ibfsim
