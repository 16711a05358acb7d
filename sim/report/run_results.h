// results.json of a run: the facts the workload gathered (run_facts.h) and the registered
// statistics (stat_tables.h), assembled into one document.
#pragma once
#include <nlohmann/json.hpp>

#include "sim/core/stats_snapshot.h"
#include "sim/report/run_facts.h"

namespace ibfsim {

nlohmann::json run_results_json(const RunFacts& facts, const StatsSnapshot& statistics);

}  // namespace ibfsim
