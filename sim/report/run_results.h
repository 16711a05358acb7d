// results.json of a run: the facts the workload gathered (run_facts.h) and the registered
// statistics of the run and of the fabric as a whole (stat_tables.h), assembled into one document.
// Whatever has a row per port, VL, link, HCA, QP, ... is left to the CSV tables
// (result_tables.h), so that the document stays small on any fabric; the writer adds their index
// ("tables").
#pragma once
#include <nlohmann/json.hpp>

#include "sim/core/stats_snapshot.h"
#include "sim/report/run_facts.h"

namespace ibfsim {

nlohmann::json run_results_json(const RunFacts& facts, const StatsSnapshot& statistics);

}  // namespace ibfsim
