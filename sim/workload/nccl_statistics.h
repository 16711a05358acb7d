// The statistics of `collectives:` (collectives.csv): one row per size of each collective, in
// the order they ran, with nccl-tests' figures.
#pragma once
#include <memory>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/workload/nccl_collective.h"

namespace ibfsim {

struct NcclStatsSource {
  const NcclCollective* coll = nullptr;
  const NcclResultRow* row = nullptr;
};

// Registers the kind "collectives" (keys op, algorithm, size_bytes) and a row per size measured.
// Call once the run is over; nothing is registered without collectives.
void register_nccl_statistics(StatsRegistry& registry, const std::vector<std::unique_ptr<NcclCollective>>& colls);

}  // namespace ibfsim
