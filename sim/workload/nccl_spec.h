// A scenario's `collectives:` (docs/scenario.md, "Collectives"): NCCL-style collective operations
// benchmarked the way nccl-tests does (all_reduce_perf -b MIN -e MAX -f FACTOR): for each size
// from min_bytes to max_bytes by factor, warmup_iterations then iterations back to back, timed per
// iteration. Entries run one after the other, in file order.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/transport/sharp/aggregation_node.h"
#include "sim/workload/intra_node_spec.h"
#include "sim/workload/nccl_schedule.h"

namespace ibfsim {

class YamlValue;
struct Scenario;

struct NcclCollectiveSpec {
  std::string name;                 // "allreduce_ring" unless given
  std::vector<std::string> ranks;   // HCAs, rank 0 first; empty in YAML: every HCA in declaration order
  NcclOp op = NcclOp::kAllReduce;
  NcclAlgorithm algorithm = NcclAlgorithm::kRing;
  std::uint32_t channels = 2;
  std::uint64_t chunk_size = 128 * 1024;
  std::uint64_t min_bytes = 8, max_bytes = 4 * 1024 * 1024;
  std::uint64_t factor = 2;
  std::uint32_t iterations = 20, warmup_iterations = 5;
  std::string datatype = "float";   // nccl-tests' name of the type (float, half, double, int32, ...)
  std::uint32_t type_bytes = 4;
  std::uint32_t root = 0;           // broadcast: the root's rank
  double reduce_gbps = 0;           // GB/s a rank reduces at (0: reductions take no time)
  std::uint8_t sl = 0;
  std::uint32_t mtu = 4096;
  // algorithm: sharp: the switches' aggregation nodes (every sharp entry the same), and the type
  // they reduce (from datatype: int32, float, half).
  AggregationNodeConfig sharp;
  SharpType sharp_type = SharpType::kFloat32;
  // nccl-tests' `-o`, `redop` in its table: what allreduce and reducescatter reduce with (sum, min,
  // max). SHARP's nodes compute it; ring and tree carry no values, so there it only names the column.
  SharpOp redop = SharpOp::kSum;
  // algorithm: sharp: a rank waiting for results that gets none for this long fails the job
  // (sharp.timeout): a packet of the tree was lost.
  Time sharp_timeout = 1 * kMs;
  Time sharp_mad_timeout = 1 * kMs;  // the aggregation manager's wait for a TreeConfig answer
  unsigned sharp_mad_retries = 3;    // resends of an unanswered TreeConfig before the job fails
  // The scenario's `intra_node:`: transfers between two HCAs of one server (Topology::servers) go
  // over it instead of InfiniBand.
  IntraNodeSpec intra_node;
  // The sizes nccl-tests runs: min_bytes, min_bytes x factor, ... up to max_bytes.
  std::vector<std::uint64_t> sizes() const;
  NcclPlan plan() const;
};

// Parses `collectives:`; each rank must be an HCA of the topology, named once. Throws
// InputError naming file:line:col.
std::vector<NcclCollectiveSpec> parse_collectives(const std::vector<YamlValue>& list, const Scenario& s);

}  // namespace ibfsim
