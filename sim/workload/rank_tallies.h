// A run across MPI ranks (sim/core/rank_exchange.h; docs/architecture.md, "Ranks"): what each rank
// observed that results.json, classes.csv, fault_destinations.csv and report.html are made from.
// Deliveries are seen on the destination's rank, generators post on the source's, the subnet
// manager sweeps on its host's; so every rank sends its tallies as integers, samples and histogram
// buckets, every rank receives every rank's, and merge_rank_tallies puts them together the same
// way on each: every figure is then computed once from the merged tallies, as one rank computes it
// (never a double computed per rank and then summed).
//
// Pure functions over plain data: tested without MPI (tests/workload/rank_tallies_test.cpp).
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/report/latency_histogram.h"
#include "sim/report/run_facts.h"
#include "sim/workload/traffic_stats.h"

namespace ibfsim {

// A generator flow's sources: the measured messages they posted, and those that arrived but were
// never built (their queue stayed full) at the end.
struct FlowSourceCounts {
  std::uint64_t posted = 0, waiting = 0;
};

struct RankTallies {
  std::vector<TrafficStats> traffic;  // [0]: every generator flow's together, then each flow's
  LatencyHistogram generator_message_latency, generator_network_latency;
  std::vector<FlowSourceCounts> sources;  // [generator flow]
  // [fault][node]: the destination's last delivery before the fault and first after (kTimeNever:
  // none, as on every rank but the destination's).
  std::vector<std::vector<Time>> last_before, first_after;
  std::vector<Time> ar_moved;  // [fault]: the latest switch to stop using the failed path; 0: none
  std::vector<std::uint64_t> m_key_violations;  // [node], summed over its ports
  std::optional<SubnetManagerFacts> subnet_manager;  // on the subnet manager's rank only
};

std::vector<std::uint8_t> encode_rank_tallies(const RankTallies& t);
// `shape`: this rank's tallies (each TrafficStats' window, the numbers of flows, faults and nodes,
// which every rank has alike). Bytes of another shape are an invariant failure.
RankTallies decode_rank_tallies(const std::vector<std::uint8_t>& bytes, const RankTallies& shape);

// Every rank's tallies put together: samples, buckets and counts added, the fault watches' and
// the fault recoveries' times the earliest and latest, the subnet manager's facts from the one rank
// that has them (more than one is an invariant failure).
RankTallies merge_rank_tallies(const std::vector<RankTallies>& per_rank);

// The subnet manager's facts as bytes and back (every field).
void encode_subnet_manager_facts(const SubnetManagerFacts& f, ByteWriter& w);
SubnetManagerFacts decode_subnet_manager_facts(ByteReader& r);

}  // namespace ibfsim
