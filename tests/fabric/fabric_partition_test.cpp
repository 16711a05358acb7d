#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <vector>

#include "sim/fabric/fabric_partition.h"

using namespace ibfsim;

namespace {

PartitionGraph uniform_nodes(std::size_t n) {
  PartitionGraph g;
  g.node_weight.assign(n, 1);
  return g;
}

void cable(PartitionGraph& g, std::size_t a, std::size_t b, Time latency) { g.cables.push_back({a, b, latency}); }

// Every cut cable joins two partitions, every other cable stays in one, and the window is the
// shortest cut cable.
void check_cuts(const PartitionGraph& g, const Partitioning& p) {
  Time shortest = kTimeNever;
  std::size_t k_cut = 0;
  for (std::size_t k = 0; k < g.cables.size(); ++k) {
    const bool cut = p.part[g.cables[k].a] != p.part[g.cables[k].b];
    const bool listed = k_cut < p.cut_cables.size() && p.cut_cables[k_cut] == k;
    CHECK(cut == listed);
    if (listed) ++k_cut;
    if (cut) shortest = std::min(shortest, g.cables[k].latency);
  }
  CHECK(k_cut == p.cut_cables.size());
  CHECK(p.min_cut_latency == shortest);
}

}  // namespace

TEST_CASE("Partitions: one partition cuts nothing", "[fabric][partition]") {
  PartitionGraph g = uniform_nodes(3);
  cable(g, 0, 1, 5 * kNs);
  cable(g, 1, 2, 5 * kNs);
  const Partitioning p = partition_fabric(g, 1);
  CHECK(p.method == PartitionMethod::kSingle);
  CHECK(p.parts == 1);
  CHECK(p.part == std::vector<std::uint32_t>{0, 0, 0});
  CHECK(p.cut_cables.empty());
  CHECK(p.min_cut_latency == kTimeNever);
  CHECK(p.part_weight == std::vector<std::uint64_t>{3});
  CHECK(partitioning_summary(p) == "1 partition");
}

TEST_CASE("Partitions: the topological split cuts a chain of equal nodes in the middle", "[fabric][partition]") {
  PartitionGraph g = uniform_nodes(6);
  for (std::size_t i = 0; i + 1 < 6; ++i) cable(g, i, i + 1, (i + 1) * kNs);
  const Partitioning p = partition_fabric(g, 2, PartitionMethod::kTopological);
  CHECK(p.method == PartitionMethod::kTopological);
  CHECK(p.part == std::vector<std::uint32_t>{0, 0, 0, 1, 1, 1});
  CHECK(p.cut_cables == std::vector<std::size_t>{2});
  CHECK(p.min_cut_latency == 3 * kNs);
  CHECK(p.part_weight == std::vector<std::uint64_t>{3, 3});
  CHECK(partitioning_summary(p) == "2 partitions (topological): weights 3 + 3, 1 cut cables, shortest cut 3 ns");
  // Three parts of two; weights move the cuts: node 0 weighs as much as the other five.
  CHECK(partition_fabric(g, 3, PartitionMethod::kTopological).part == std::vector<std::uint32_t>{0, 0, 1, 1, 2, 2});
  g.node_weight[0] = 5;
  CHECK(partition_fabric(g, 2, PartitionMethod::kTopological).part == std::vector<std::uint32_t>{0, 1, 1, 1, 1, 1});
}

TEST_CASE("Partitions: more partitions than nodes, and nodes without cables", "[fabric][partition]") {
  PartitionGraph g = uniform_nodes(3);
  cable(g, 0, 2, 2 * kNs);
  const Partitioning p = partition_fabric(g, 8, PartitionMethod::kTopological);
  CHECK(p.parts == 3);
  // Breadth-first from node 0: 0, 2, then node 1's own component, one partition each; partitions
  // are then numbered in the order of their lowest node.
  CHECK(p.part == std::vector<std::uint32_t>{0, 1, 2});
  check_cuts(g, p);
}

TEST_CASE("Partitions: METIS keeps short cables inside partitions and cuts the long ones", "[fabric][partition]") {
  // A ring 0-1-2-3-0: 0-1 and 2-3 are 1 ns, the other two 10 ns.
  PartitionGraph g = uniform_nodes(4);
  cable(g, 0, 1, 1 * kNs);
  cable(g, 1, 2, 10 * kNs);
  cable(g, 2, 3, 1 * kNs);
  cable(g, 3, 0, 10 * kNs);
  const Partitioning p = partition_fabric(g, 2);
  if (!metis_available()) {
    CHECK(p.method == PartitionMethod::kTopological);
    return;
  }
  CHECK(p.method == PartitionMethod::kMetis);
  CHECK(p.part == std::vector<std::uint32_t>{0, 0, 1, 1});
  CHECK(p.cut_cables == std::vector<std::size_t>{1, 3});
  CHECK(p.min_cut_latency == 10 * kNs);
  check_cuts(g, p);
}

TEST_CASE("Partitions: METIS splits two cliques at the bridge between them, balanced", "[fabric][partition]") {
  PartitionGraph g = uniform_nodes(10);
  for (std::size_t base : {0u, 5u})
    for (std::size_t i = 0; i < 5; ++i)
      for (std::size_t j = i + 1; j < 5; ++j) cable(g, base + i, base + j, 5 * kNs);
  cable(g, 4, 5, 5 * kNs);  // the bridge, cable 20
  const Partitioning p = partition_fabric(g, 2);
  check_cuts(g, p);
  if (!metis_available()) return;
  CHECK(p.part == std::vector<std::uint32_t>{0, 0, 0, 0, 0, 1, 1, 1, 1, 1});
  CHECK(p.cut_cables == std::vector<std::size_t>{20});
  CHECK(p.part_weight == std::vector<std::uint64_t>{5, 5});
}

TEST_CASE("Partitions: a two-level fat tree in four, every partition used and the cuts consistent",
          "[fabric][partition]") {
  // 8 leaves of 8 hosts, 4 spines; hosts weigh 2 (one cabled port + 1), switches 1 + ports.
  PartitionGraph g;
  const std::size_t spines = 4, leaves = 8, per_leaf = 8;
  g.node_weight.assign(spines, 1 + leaves);
  for (std::size_t l = 0; l < leaves; ++l) g.node_weight.push_back(1 + spines + per_leaf);
  for (std::size_t h = 0; h < leaves * per_leaf; ++h) g.node_weight.push_back(2);
  for (std::size_t l = 0; l < leaves; ++l) {
    for (std::size_t s = 0; s < spines; ++s) cable(g, s, spines + l, 10 * kNs);
    for (std::size_t h = 0; h < per_leaf; ++h) cable(g, spines + l, spines + leaves + l * per_leaf + h, 10 * kNs);
  }
  for (PartitionMethod m : {PartitionMethod::kMetis, PartitionMethod::kTopological}) {
    const Partitioning p = partition_fabric(g, 4, m);
    CHECK(p.parts == 4);
    check_cuts(g, p);
    std::uint64_t total = 0;
    for (auto w : g.node_weight) total += w;
    std::uint64_t sum = 0;
    for (auto w : p.part_weight) {
      CHECK(w > 0);
      // Within a tenth of an even share.
      CHECK(w * 4 * 10 <= total * 11);
      sum += w;
    }
    CHECK(sum == total);
    CHECK(p.min_cut_latency == 10 * kNs);
  }
}

TEST_CASE("Partitions: nodes that must be together share a partition", "[fabric][partition]") {
  PartitionGraph g = uniform_nodes(6);
  for (std::size_t i = 0; i + 1 < 6; ++i) cable(g, i, i + 1, 4 * kNs);
  g.together = {{0, 5}};
  for (PartitionMethod m : {PartitionMethod::kMetis, PartitionMethod::kTopological}) {
    const Partitioning p = partition_fabric(g, 2, m);
    CHECK(p.parts == 2);
    CHECK(p.part[0] == p.part[5]);
    check_cuts(g, p);
  }
  // Topologically the contracted chain is {0,5}-1-2-3-4 with weights 2,1,1,1,1: {0,5,1} and {2,3,4}.
  CHECK(partition_fabric(g, 2, PartitionMethod::kTopological).part == std::vector<std::uint32_t>{0, 0, 1, 1, 1, 0});
  // Everything together: one partition, whatever was asked.
  g.together = {{0, 1, 2}, {2, 3, 4, 5}};
  const Partitioning one = partition_fabric(g, 4);
  CHECK(one.parts == 1);
  CHECK(one.cut_cables.empty());
}
