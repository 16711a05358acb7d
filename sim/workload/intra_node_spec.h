// A scenario's `intra_node:` (docs/scenario.md, "Collectives"): the fabric inside a server (what
// NCCL calls a node) that joins its GPUs, NVLink-like, over which a collective's transfer between
// two HCAs of one server goes instead of InfiniBand (nccl_collective.h). Each GPU has one link
// out and one in; a transfer holds the sender's for bytes / bandwidth, its head reaches the
// receiver `latency` after it started, and it is in once the receiver's link has taken every
// byte (so alone it arrives latency + bytes / bandwidth after it started).
#pragma once
#include <cstdint>

#include "sim/core/time.h"

namespace ibfsim {

class YamlValue;
struct Topology;

struct IntraNodeSpec {
  // NVLink 4 (H100 SXM): 18 links of 25 GB/s each way, 450 GB/s per direction per GPU.
  std::uint64_t bytes_per_second = 450'000'000'000;
  // Between NCCL's tuning model's NVLink hop latencies, 0.47 us (LL protocol) and 3.4 us (Simple).
  Time latency = 1 * kUs;

  // The time `bytes` hold a link: bytes / bandwidth, rounded up to the next femtosecond.
  Time serialization(std::uint64_t bytes) const;
};

// Parses `intra_node: {bandwidth: 450GB/s, latency: 1us}` (each key optional). The topology must
// group its HCAs into servers (`servers:` or a generator that does), else the keys would do
// nothing: an error. Throws InputError naming file:line:col.
IntraNodeSpec parse_intra_node(const YamlValue& v, const Topology& topo);

}  // namespace ibfsim
