#include "sim/workload/scenario_run.h"

#include <ctime>
#include <systemc>

#include "sim/core/stop_signals.h"
#include "sim/workload/scenario_run_phases.h"

namespace ibfsim {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

RunResult run_scenario(const Scenario& sc, const std::string& out_dir) {
  init_time_resolution();
  // sc_stop() at the end of the drain phase is how a run normally ends: no message for it.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  std::filesystem::create_directories(out_dir);
  ScenarioRun run(sc, out_dir);
  build_fabric(run);
  set_results_pending();  // from here a second stop signal waits for the results (stop_signals.h)
  bring_up_fabric(run);
  start_traffic(run);
  run_traffic(run);
  drain(run);
  CollectedResults collected = collect(run);
  return write_results(run, collected);
}

}  // namespace ibfsim
