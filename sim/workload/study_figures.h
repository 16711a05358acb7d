// The figures a load sweep plots (StudyFigures, sim/report/run_facts.h), over every load-driven
// flow and class of a run: offered and accepted load, latency histograms, and whether the run
// saturated.
#pragma once
#include <memory>
#include <vector>

#include "sim/fabric/host_fabric.h"
#include "sim/report/run_facts.h"
#include "sim/workload/rank_tallies.h"
#include "sim/workload/run_observer.h"
#include "sim/workload/scenario.h"
#include "sim/workload/traffic_class.h"
#include "sim/workload/traffic_stats.h"
#include "sim/workload/ud_traffic_generator.h"

namespace ibfsim {

// The counts of one generator flow's sources on this rank: measured messages posted, and those
// waiting (arrived, never built) at the end.
FlowSourceCounts source_counts(const std::vector<UdTrafficGenerator*>& generators);

// `end`: when the run ended; `end_limit`: when it would have at the latest (kTimeNever when it
// was stopped early: then it never saturated).
// `sources`: each generator flow's sources' counts (take_in_rank_tallies).
StudyFigures study_figures(const Scenario& sc, const std::vector<std::vector<UdTrafficGenerator*>>& flow_generators,
                           const std::vector<FlowSourceCounts>& sources,
                           const std::vector<TrafficStats>& flow_stats,
                           const std::vector<std::unique_ptr<TrafficClass>>& classes, const RunObserver& observer,
                           HostFabric& fabric, Time end, Time end_limit);

}  // namespace ibfsim
