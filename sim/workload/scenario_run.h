// Runs one scenario in this process (SystemC can elaborate and simulate once per process) and
// writes its results folder: results.json, ports.csv, and the optional trace.pcap,
// trace_links.csv and packets.csv.
#pragma once
#include <nlohmann/json.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/workload/scenario.h"

namespace ibfsim {

struct RunResult {
  nlohmann::json results;  // what results.json holds
  std::string summary;     // a few lines for humans
  // Wall and CPU time (of this thread) in the simulation kernel, never in results.json (a run's
  // results do not depend on the machine): for bench/. The bring-up is the subnet manager's first
  // sweep; simulate_* is the rest of the run, from the start of traffic.
  double bring_up_wall_seconds = 0, bring_up_cpu_seconds = 0;
  double simulate_wall_seconds = 0, simulate_cpu_seconds = 0;
  // From the start of traffic: the synchronisation windows run and the events that crossed
  // between partitions (this rank's), for bench/'s model of the speedup (docs/scale.md).
  std::uint64_t traffic_windows = 0, traffic_crossings = 0;
  bool partial = false;  // stopped early (CalendarProcess::request_stop, e.g. Ctrl-C)
  // A PFC deadlock stopped a RoCE run (fabric/pfc_deadlock_detector.h): its message; `ibfsim run`
  // prints it and exits with status 4.
  std::string deadlock;
};

// On a terminal, long runs show their progress on stderr (progress_meter.h). A run stopped with
// CalendarProcess::request_stop() (SIGINT) still writes its results, marked "partial": true.
// Throws InputError for bad input and SimError when an invariant breaks.
RunResult run_scenario(const Scenario& scenario, const std::string& out_dir);

// What a run prints before it simulates, so that a long run says at once what it runs:
//   ibfsim 0.1.0: scenarios/quickstart.yaml (seed 1)
//   fabric: 8 HCAs, 1 switch, 8 cables (4x EDR)
// The summary (RunResult::summary) follows once it is over.
std::string run_header(const Scenario& scenario);
// The names of every file a run may write into its folder (whichever outputs its scenario asks
// for): those of an earlier run are removed before a new run writes (output_folder.h).
const std::vector<std::string>& run_output_files();

}  // namespace ibfsim
