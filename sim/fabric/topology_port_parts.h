// The connected parts of a topology's ports, by union-find over its cables: one element per switch
// (its ports are joined inside it) and one per port of any other node (an HCA's or a router's ports
// are separate end ports). Shared by the reachability check (topology.h) and the subnets
// (topology_subnets.h).
#pragma once
#include <algorithm>
#include <cstddef>
#include <numeric>
#include <vector>

#include "sim/fabric/topology.h"

namespace ibfsim {

class TopologyPortParts {
 public:
  // Every cable joins the elements of its two ends.
  explicit TopologyPortParts(const Topology& topo) : topo_(topo), base_(topo.nodes.size() + 1, 0) {
    for (std::size_t n = 0; n < topo.nodes.size(); ++n)
      base_[n + 1] = base_[n] + (topo.nodes[n].type == NodeType::kSwitch ? 1 : topo.nodes[n].num_ports);
    parent_.resize(base_.back());
    std::iota(parent_.begin(), parent_.end(), std::size_t{0});
    for (const TopoCable& c : topo.cables) join(element(c.node_a, c.port_a), element(c.node_b, c.port_b));
  }
  std::size_t elements() const { return parent_.size(); }
  // Node n's elements are [first(n), end(n)).
  std::size_t first(std::size_t node) const { return base_[node]; }
  std::size_t end(std::size_t node) const { return base_[node + 1]; }
  std::size_t element(std::size_t node, unsigned port) const {
    return topo_.nodes[node].type == NodeType::kSwitch ? base_[node] : base_[node] + port - 1;
  }
  // The part's root: its smallest element.
  std::size_t find(std::size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(std::size_t x, std::size_t y) {
    const std::size_t a = find(x), b = find(y);
    if (a != b) parent_[std::max(a, b)] = std::min(a, b);
  }

 private:
  const Topology& topo_;
  std::vector<std::size_t> base_;
  std::vector<std::size_t> parent_;
};

}  // namespace ibfsim
