// A scenario's `trace:` (docs/scenario.md, "Trace replay"): an MPI application's OTF2 trace
// replayed on the fabric (trace_replay.h), its ranks mapped to HCAs. The trace is read and planned
// when the scenario is loaded, so that a bad trace is refused before anything runs.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "sim/workload/mpi_replay_plan.h"
#include "sim/workload/mpi_trace.h"

namespace ibfsim {

class YamlMap;
struct Scenario;

struct TraceReplaySpec {
  std::string file;                // the archive's anchor (.otf2), resolved from the scenario's folder
  std::vector<std::string> hosts;  // by world rank: the HCA it runs on
  std::uint8_t sl = 0;
  std::uint32_t mtu = 4096;
  // What was read and planned (shared: a scenario is copied by sweeps).
  std::shared_ptr<const MpiTrace> trace;
  std::shared_ptr<const ReplayPlan> plan;
};

// `trace:` of `m` (the scenario's top map). Throws InputError naming file:line:col.
TraceReplaySpec parse_trace_replay(const YamlMap& trace, const Scenario& s);

}  // namespace ibfsim
