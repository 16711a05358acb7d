// The statistics of traffic classes (classes.csv): one row per class, then the run's totals over
// every load-driven flow and class ("all", StudyFigures).
#pragma once
#include <memory>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/report/run_facts.h"
#include "sim/workload/traffic_class.h"

namespace ibfsim {

// A row of classes.csv: a traffic class, or the totals.
struct ClassStatsSource {
  const TrafficClass* cls = nullptr;        // nullptr: the totals row
  const StudyFigures* totals = nullptr;
};

// Registers the kind "classes" (key name) and its statistics, then a row per class and, for a run
// with load-driven traffic, the totals row "all". Call once the run is over.
void register_class_statistics(StatsRegistry& registry, const std::vector<std::unique_ptr<TrafficClass>>& classes,
                               const StudyFigures& totals);

}  // namespace ibfsim
