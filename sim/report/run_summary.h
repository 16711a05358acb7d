// The few lines a run prints for humans: the fabric, how long it took to come up, what was
// simulated, packets, latency and throughput, per flow and class, saturation, congestion control
// and where the results are.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "sim/report/run_facts.h"

namespace ibfsim {

// `results`: the run's results.json (run_results.h), whose figures the summary repeats. It starts
// with how the fabric came up: the run printed its header (the version, the scenario and
// fabric_line) before it simulated.
std::string run_summary(const RunFacts& facts, const nlohmann::json& results);

// The header's fabric line: "fabric: 8 HCAs, 1 switch, 8 cables (4x EDR)", each rate with its cables when
// there are several: "(4 at 4x EDR, 4 at 4x HDR)".
std::string fabric_line(const RunFacts& facts);

}  // namespace ibfsim
