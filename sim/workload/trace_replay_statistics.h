// The statistics of a trace replay (`trace:`): trace_ranks.csv, a row per rank (its messages and
// bytes, its end against the trace's own); trace_steps.csv, a row per step of each rank (the
// trace's gap before it, when it posted and completed: posted minus the previous completion is the
// gap, to the femtosecond); and results.json "trace_replay" (totals, the replay's and the trace's
// lengths).
#pragma once
#include "sim/core/stats_registry.h"
#include "sim/workload/trace_replay.h"

namespace ibfsim {

// Nothing is registered without a replay. Call once the run is over.
void register_trace_replay_statistics(StatsRegistry& registry, const TraceReplay* replay);

}  // namespace ibfsim
