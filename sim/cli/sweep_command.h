// `ibfsim sweep SCENARIO --set key=lo:hi:step|a,b,c ... [-o DIR] [-j N] [--plan | --slurm ...]` and
// `ibfsim collect DIR`.
//
// sweep writes DIR/sweep.json (the points and, for each, one self-contained `ibfsim run` command),
// then runs the points as child processes, N at a time, each into DIR/points/pNNNN (its output in
// run.log there), and finally does what collect does. With --plan it only writes sweep.json and
// prints the commands, one per line, for GNU parallel or a job array to run anywhere that sees DIR.
// With --slurm it writes them to DIR/commands.txt and DIR/sweep.sbatch, a Slurm job array running
// one point per task (`sbatch DIR/sweep.sbatch`, then `ibfsim collect DIR`).
//
// collect reads DIR/sweep.json and every point's results.json and writes DIR/curve.csv,
// saturation.json, plot_data.csv and plot.gp, then renders latency.png/svg and throughput.png/svg
// with gnuplot (curve.h); with --metric, also metrics_data.csv, metrics.png/svg and (two metrics
// or more) tradeoff.png/svg. The curve depends only on the points' results, so every way of running
// the points gives the same bytes.
#pragma once
#include <CLI/CLI.hpp>

#include <cstdint>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ibfsim {

struct SweepOptions {
  std::string scenario;
  std::string out_dir;
  std::vector<std::string> sets;
  std::string seed;  // --seed as given (cli_values.h checks it)
  unsigned jobs = 1;
  std::string threads;  // --threads as given: each point's run uses this many (checked here, passed on)
  bool plan = false;
  double accepted_drop = 0.05;
  double latency_factor = 10;
  std::vector<std::string> metrics;  // NAME=SELECTOR (curve.h, json_select.h)
  // --slurm: write an sbatch job array (one task per point) instead of running the points.
  bool slurm = false;
  std::string slurm_time = "1:00:00", slurm_mem = "2G", slurm_partition, slurm_account;
  unsigned slurm_cpus = 1, slurm_max_running = 0;  // 0: no limit on tasks running at once
  std::vector<std::string> slurm_args;             // more #SBATCH options, as given
};


struct CollectOptions {
  std::string dir;
};

CLI::App* add_sweep_subcommand(CLI::App& app, SweepOptions& opts);
CLI::App* add_collect_subcommand(CLI::App& app, CollectOptions& opts);

// Exit codes: 0 every point ran, 1 a point failed, 2 bad input, 3 a file could not be written,
// 128 + N stopped by signal N (SIGINT, SIGTERM, SIGHUP; forwarded to the running points).
int run_sweep_command(const SweepOptions& opts, std::ostream& out, std::ostream& err);
// Exit codes: 0, or 2 when DIR is no sweep folder or its sweep.json is not what sweep writes.
int run_collect_command(const CollectOptions& opts, std::ostream& out, std::ostream& err);

}  // namespace ibfsim
