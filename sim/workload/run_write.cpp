// The write phase of a run (scenario_run_phases.h): the results folder and the printed summary.
#include "sim/report/atomic_file.h"
#include "sim/report/results_json.h"
#include "sim/report/run_summary.h"
#include "sim/report/stat_tables.h"
#include "sim/report/time_series_plot.h"
#include "sim/workload/scenario_run_phases.h"

namespace ibfsim {

namespace {

// fct.csv: every iteration of every collective.
void write_fct_csv(const ScenarioRun& run) {
  bool any_collective = false;
  for (const auto& c : run.classes) any_collective = any_collective || c->spec().collective();
  if (!any_collective) return;
  std::string fct = "class,iteration,start_ns,end_ns,fct_ns\n";
  for (const auto& c : run.classes) fct += c->fct_csv_rows();
  write_file_atomically((run.dir / "fct.csv").string(), fct);
}

// time_series.csv and its plot; what the summary says about them.
RunFacts::TimeSeries write_time_series(const ScenarioRun& run) {
  const Scenario& sc = run.sc;
  RunFacts::TimeSeries ts;
  ts.samples = run.sampler->rows();
  ts.csv_path = (run.dir / "time_series.csv").string();
  write_file_atomically(ts.csv_path, run.sampler->csv());
  ts.plot_note = render_time_series(std::filesystem::absolute(ts.csv_path).string(), run.panels, sc.file,
                                    std::filesystem::absolute(run.dir / "time_series").string(),
                                    sc.outputs.time_series.png, sc.outputs.time_series.svg);
  return ts;
}

}  // namespace

const std::vector<std::string>& run_output_files() {
  static const std::vector<std::string> files = {
      "results.json", "ports.csv",       "port_vls.csv",    "discards.csv",    "packets.csv",     "port_utilization.csv",
      "credit_stall.csv", "classes.csv", "fct.csv",         "time_series.csv", "time_series.gp",  "time_series.png",
      "time_series.svg", "trace.pcap",   "trace_links.csv", "waves.vcd"};
  return files;
}

RunResult write_results(ScenarioRun& run, CollectedResults& c) {
  const std::filesystem::path& dir = run.dir;
  const StatsSnapshot& stats = c.statistics;
  write_json_atomically((dir / "results.json").string(), c.results);
  write_file_atomically((dir / "ports.csv").string(), stats_csv(stats, kPortsCsv));
  write_file_atomically((dir / "port_vls.csv").string(), stats_csv(stats, kPortVlsCsv));
  write_file_atomically((dir / "discards.csv").string(), stats_csv(stats, kDiscardsCsv));
  if (run.sc.outputs.packet_log) write_file_atomically((dir / "packets.csv").string(), run.packet_log.csv());
  if (run.port_window) {
    write_file_atomically((dir / "port_utilization.csv").string(), stats_csv(stats, kPortUtilizationCsv));
    write_file_atomically((dir / "credit_stall.csv").string(), stats_csv(stats, kCreditStallCsv));
  }
  write_file_atomically((dir / "classes.csv").string(), stats_csv(stats, kClassesCsv));
  write_fct_csv(run);
  if (run.sampler) c.facts.time_series = write_time_series(run);

  RunResult r;
  r.summary = run_summary(c.facts, c.results);
  r.results = std::move(c.results);
  r.bring_up_wall_seconds = run.bring_up_wall;
  r.bring_up_cpu_seconds = run.bring_up_cpu;
  r.simulate_wall_seconds = run.simulate_wall;
  r.partial = run.partial;
  r.simulate_cpu_seconds = run.simulate_cpu;
  return r;
}

}  // namespace ibfsim
