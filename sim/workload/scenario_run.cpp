#include "sim/workload/scenario_run.h"

#include <ctime>
#include <systemc>

#include <fmt/format.h>

#include "sim/report/progress_meter.h"
#include "sim/report/run_summary.h"
#include "sim/core/calendar_process.h"
#include "sim/core/stop_signals.h"
#include "sim/workload/roce_run.h"
#include "sim/workload/scenario_run_phases.h"

namespace ibfsim {

double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

std::string run_header(const Scenario& sc) {
  RunFacts f;
  f.hcas = sc.topology.hcas().size();
  f.switches = sc.topology.switches().size();
  f.cables = sc.topology.cables.size();
  f.cable_rates = cable_rates(sc.topology);
  if (sc.fabric == FabricKind::kRoce) {
    f.cable_rates = roce_cable_rates(sc.topology, sc.roce.rate);
    if (f.cable_rates.size() == 1) f.cable_rates[0].first = "RoCE v2, " + f.cable_rates[0].first;
  }
  return fmt::format("ibfsim {}: {} (seed {})\n", IBFSIM_VERSION_STRING, sc.file, sc.seed) + fabric_line(f);
}

RunResult run_scenario(const Scenario& sc, const std::string& out_dir) {
  init_time_resolution();
  // sc_stop() at the end of the drain phase is how a run normally ends: no message for it.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  std::filesystem::create_directories(out_dir);
  if (sc.fabric == FabricKind::kRoce) return run_roce_scenario(sc, out_dir);
  ScenarioRun run(sc, out_dir);
  build_fabric(run);
  set_results_pending();  // from here a second stop signal waits for the results (stop_signals.h)
  bring_up_fabric(run);
  start_traffic(run);
  run_traffic(run);
  drain(run);
  // The simulation is over: the threads that ran its partitions go (calendar_process.h).
  CalendarProcess::shared().end_partition_threads();
  // Collecting and writing the results of a large fabric takes a while: its own progress line.
  ProgressMeter meter([&run](double wall) {
    const char* file = run.results_file.load(std::memory_order_relaxed);
    if (!file) return fmt::format("results: collecting statistics, wall {}", progress_wall_text(wall));
    const std::uint64_t lines = run.results_lines.load(std::memory_order_relaxed);
    return results_progress_line(file, run.results_index.load(std::memory_order_relaxed),
                                 run.results_of.load(std::memory_order_relaxed), lines ? lines - 1 : 0,
                                 run.results_rows_of.load(std::memory_order_relaxed), wall);
  });
  CollectedResults collected;
  collect(run, collected);
  return write_results(run, collected);
}

}  // namespace ibfsim
