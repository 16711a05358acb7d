// A SHARP job's aggregation tree over the topology (aggregation_node.h runs it): the leaf switches
// of the job's hosts aggregate their hosts, switches above aggregate the leaves, and one root
// aggregates everything. A pure function of the topology and the hosts, as plain data.
//
// The root is the switch with the smallest largest hop distance to the job's leaf switches (the
// lowest node index among equals: on a fat tree, the first spine that reaches every leaf); each
// leaf joins the tree by a shortest path towards the root, breadth first, every switch taking as
// its parent the lowest-numbered neighbour switch one hop nearer the root. With one leaf the leaf
// is the root. A host's leaf is the switch its lowest-numbered cabled port reaches.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/fabric/topology.h"

namespace ibfsim {

inline constexpr std::size_t kNoTreeNode = ~std::size_t{0};

struct AggregationTreeNode {
  std::size_t node = 0;                  // the switch (topology node index)
  std::size_t parent = kNoTreeNode;      // index into AggregationTree::nodes; none at the root
  unsigned parent_port = 0;              // this switch's port towards the parent (0 at the root)
  std::vector<std::size_t> children;     // tree nodes below, in increasing switch index
  std::vector<std::size_t> hosts;        // job hosts cabled here (topology node indices), in job order
  unsigned level = 0;                    // 0 at the root
  // Children of the aggregation (switches and hosts): what a node waits for per operation.
  std::size_t fan_in() const { return children.size() + hosts.size(); }
};

struct AggregationTree {
  std::vector<AggregationTreeNode> nodes;  // nodes[0] is the root; then breadth first, by switch index
  std::vector<std::size_t> leaf_of_host;   // per job host (in job order): its tree node
  std::size_t depth() const;               // switch levels: 1 when the root is the only leaf
  // The tree node of switch `node`, if it is in the tree.
  std::optional<std::size_t> find(std::size_t node) const;
  // "sw1 <- [h1, h2]; spine1 <- [sw1, sw2]": for tests and notes.
  std::string text(const Topology& topo) const;
};

// The tree for `hosts` (topology node indices of HCAs, each once, at least one). Throws
// std::invalid_argument naming the host when a host has no cabled switch or the leaves are not
// connected through switches.
AggregationTree aggregation_tree(const Topology& topo, const std::vector<std::size_t>& hosts);

}  // namespace ibfsim
