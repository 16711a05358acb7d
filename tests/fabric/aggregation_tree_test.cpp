// SHARP aggregation trees (aggregation_tree.h) on a 2-level fat tree (leaf_spine 3 leaves x 2
// spines x 2 hosts: h1..h6, leaf1..leaf3, spine1, spine2), written out by hand.
#include <catch2/catch.hpp>

#include <stdexcept>

#include "sim/fabric/aggregation_tree.h"
#include "sim/fabric/topology_generators.h"

using namespace ibfsim;

namespace {

Topology fat_tree() { return generate_leaf_spine(3, 2, 2, TopologyDefaults{}); }

std::vector<std::size_t> nodes(const Topology& t, std::initializer_list<const char*> names) {
  std::vector<std::size_t> out;
  for (const char* n : names) out.push_back(*t.find_node(n));
  return out;
}

}  // namespace

TEST_CASE("aggregation tree: leaves aggregate their hosts, the first spine the leaves", "[fabric][sharp]") {
  const Topology t = fat_tree();
  const AggregationTree tree = aggregation_tree(t, t.hcas());
  CHECK(tree.text(t) == "spine1 <- [leaf1, leaf2, leaf3]; leaf1 <- [h1, h2]; leaf2 <- [h3, h4]; leaf3 <- [h5, h6]");
  REQUIRE(tree.nodes.size() == 4);
  CHECK(tree.depth() == 2);
  CHECK(tree.nodes[0].parent == kNoTreeNode);
  CHECK(tree.nodes[0].fan_in() == 3);
  // leaf1's ports: 1, 2 to h1, h2; 3 to spine1, 4 to spine2.
  CHECK(tree.nodes[1].node == *t.find_node("leaf1"));
  CHECK(tree.nodes[1].parent == 0);
  CHECK(tree.nodes[1].parent_port == 3);
  CHECK(tree.nodes[1].level == 1);
  CHECK(tree.nodes[3].fan_in() == 2);
  CHECK(tree.leaf_of_host == std::vector<std::size_t>{1, 1, 2, 2, 3, 3});
}

TEST_CASE("aggregation tree: only the leaves of the job's hosts, hosts in job order", "[fabric][sharp]") {
  const Topology t = fat_tree();
  const AggregationTree tree = aggregation_tree(t, nodes(t, {"h6", "h1", "h5"}));
  CHECK(tree.text(t) == "spine1 <- [leaf1, leaf3]; leaf1 <- [h1]; leaf3 <- [h6, h5]");
  CHECK(tree.leaf_of_host == std::vector<std::size_t>{2, 1, 2});
}

TEST_CASE("aggregation tree: hosts of one leaf make a one-switch tree", "[fabric][sharp]") {
  const Topology t = fat_tree();
  const AggregationTree tree = aggregation_tree(t, nodes(t, {"h4", "h3"}));
  CHECK(tree.text(t) == "leaf2 <- [h4, h3]");
  CHECK(tree.depth() == 1);
  CHECK_THROWS_AS(aggregation_tree(t, {}), std::invalid_argument);
}
