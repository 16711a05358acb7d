// How a fabric is split among partitions for a parallel run (docs/architecture.md, "Partitions"):
// each partition is a set of nodes simulated on its own calendar (and thread), and the cables
// between partitions are the only way one partition learns of another. Nothing crosses a cable
// faster than its latency (its propagation plus one symbol edge), so the partitions can run
// independently through any stretch of simulated time no longer than the shortest cut cable.
//
// A pure function of plain data: nodes with a weight (the work expected of them), cables with
// their latency. METIS (k-way, fixed seed) cuts the fewest and the longest cables, balancing the
// weight; without METIS, or when asked, a topological split: nodes in breadth-first order from
// node 0, cut into runs of about equal weight.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

struct PartitionGraph {
  std::vector<std::uint32_t> node_weight;  // by node: the work expected of it (>= 1)
  struct Cable {
    std::size_t a = 0, b = 0;
    Time latency = 0;  // the least time anything takes from one end to the other
  };
  std::vector<Cable> cables;
  // Groups of nodes that must share a partition: nodes whose workload reaches into each other
  // directly (a collective's hosts, the two sides of a verbs flow) rather than only by cable.
  std::vector<std::vector<std::size_t>> together;
};

enum class PartitionMethod { kSingle, kMetis, kTopological };
const char* partition_method_name(PartitionMethod m);  // "single", "metis", "topological"

struct Partitioning {
  PartitionMethod method = PartitionMethod::kSingle;
  unsigned parts = 1;                    // partitions used (at most the number of nodes)
  std::vector<std::uint32_t> part;       // by node
  std::vector<std::size_t> cut_cables;   // indices into PartitionGraph::cables, ascending
  Time min_cut_latency = kTimeNever;     // the shortest cut cable's latency (kTimeNever: none cut)
  std::vector<std::uint64_t> part_weight;  // by partition: the sum of its nodes' weights
};

// Whether this build has METIS (libmetis-dev).
bool metis_available();

// Splits the graph's nodes into `parts` partitions (1 or more; more than the nodes are not used).
// `method` kMetis falls back to kTopological when METIS is not built in or fails.
Partitioning partition_fabric(const PartitionGraph& g, unsigned parts, PartitionMethod method = PartitionMethod::kMetis);

// One line for a run's header: "2 partitions (metis): 1,234 + 1,230 weight, 48 cut cables, window 10.2 ns".
std::string partitioning_summary(const Partitioning& p);

}  // namespace ibfsim
