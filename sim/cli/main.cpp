// The ibfsim command. Exit codes: 0 success, 1 simulation error, 2 bad input, 3 a result could not
// be written (disk full, I/O error), 128 + N stopped by signal N (SIGINT, SIGTERM, SIGHUP).
#include <CLI/CLI.hpp>
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <iostream>
#include <memory>
#include <systemc>

#include "sim/cli/cli_values.h"
#include "sim/cli/routes_command.h"
#include "sim/cli/sweep_command.h"
#include "sim/cli/topo_command.h"
#include "sim/core/calendar_process.h"
#include "sim/core/error.h"
#include "sim/core/rank_exchange.h"
#include "sim/core/stop_signals.h"
#include "sim/core/temporary_files.h"
#include "sim/fabric/yaml_input.h"
#include "sim/workload/scenario.h"
#include "sim/report/event_trace_file.h"
#include "sim/report/output_folder.h"
#include "sim/workload/scenario_run.h"

namespace {

// Where -o came from, for messages about the folder.
std::string output_flag(const std::string& given) { return given.empty() ? "the default results folder" : "-o"; }

int run_command(const std::string& scenario_path, std::string out_dir, const std::string& seed_text,
                const std::vector<std::string>& sets, const std::string& event_trace, const std::string& threads) {
  ibfsim::enable_graceful_stop();
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const auto& s : sets) overrides.push_back(ibfsim::split_override(s));
  if (!seed_text.empty()) overrides.emplace_back("seed", std::to_string(ibfsim::parse_seed_flag(seed_text)));
  if (!threads.empty()) {
    if (!ibfsim::threads_from_text(threads))
      throw ibfsim::InputError("--threads " + threads + ": expected a number of threads from 1 to 1024, or auto");
    overrides.emplace_back("simulation.threads", threads);
  }
  ibfsim::Scenario sc = ibfsim::load_scenario(scenario_path, overrides);
  for (const auto& w : sc.warnings) std::cerr << "warning: " << w << "\n";
  const std::string flag = output_flag(out_dir);
  if (out_dir.empty()) out_dir = (std::filesystem::path("results") / std::filesystem::path(scenario_path).stem()).string();
  // An earlier run's files would stay beside the new ones (a trace.pcap the new run does not
  // write, say); a killed run's temporaries would stay forever. Across MPI ranks, rank 0 alone
  // writes files (sim/core/rank_exchange.h), and so prepares the folder.
  ibfsim::EarlierOutputs earlier;
  if (ibfsim::ranks::rank() == 0) {
    ibfsim::prepare_output_folder(out_dir, flag);
    earlier = ibfsim::clear_earlier_outputs(out_dir, "results.json", ibfsim::run_output_files());
  }
  std::unique_ptr<ibfsim::EventTraceFile> trace;
  if (!event_trace.empty()) {
    const std::filesystem::path tp(event_trace);
    std::error_code ec;
    if (std::filesystem::is_directory(tp, ec))
      throw ibfsim::InputError("--event-trace " + event_trace + ": expected a file to write, got a folder");
    ibfsim::remove_stale_temporaries(tp.parent_path().empty() ? "." : tp.parent_path().string(),
                                     tp.filename().string() + ".tmp-");
    trace = std::make_unique<ibfsim::EventTraceFile>(event_trace);
    ibfsim::CalendarProcess::set_trace(trace.get());
  }
  // The header goes out before anything is simulated, so a long run says at once what it runs.
  std::cout << ibfsim::run_header(sc) << std::flush;
  const auto wall_start = std::chrono::steady_clock::now();
  ibfsim::RunResult r = ibfsim::run_scenario(sc, out_dir);
  if (trace) {
    ibfsim::CalendarProcess::set_trace(nullptr);
    trace->close();
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  std::string notes;
  if (!earlier.removed.empty())
    notes += fmt::format("earlier run in {}: {} of its files removed first ({})\n", out_dir, earlier.removed.size(),
                         fmt::join(earlier.removed, ", "));
  if (!earlier.temporaries.empty())
    notes += fmt::format("leftovers of a killed run in {}: {} temporary files removed\n", out_dir,
                         earlier.temporaries.size());
  std::cout << r.summary << notes << fmt::format("wall time: {:.2f} s\n", wall);
  if (const int sig = ibfsim::stop_signal()) return 128 + sig;
  if (!r.deadlock.empty()) {
    // Across MPI ranks every rank found it: rank 0 says so.
    if (ibfsim::ranks::rank() == 0) std::cerr << "error: " << r.deadlock << "\n";
    return 4;  // a PFC deadlock stopped the run (docs/scenario.md, "PFC deadlocks")
  }
  return r.partial ? 130 : 0;
}

// The names of the subcommands, for the message about an unknown one.
constexpr const char* kSubcommands = "run, sweep, collect, topo or routes";

}  // namespace

// SystemC prints its banner before sc_main unless this variable is set; users never see it.
int main(int argc, char* argv[]) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  // SIGINT, SIGTERM, SIGHUP: stop, write the results so far marked partial, exit 128 + signal
  // (stop_signals.h); a signal that ends the process removes its temporary files first.
  ibfsim::install_stop_signal_handlers();
  // Started by mpirun: join the other ranks first (sim/core/rank_exchange.h).
  try {
    ibfsim::ranks::init(&argc, &argv);
    // The terminal hears from rank 0 only (errors from any rank still reach stderr).
    if (ibfsim::ranks::rank() != 0 && !std::freopen("/dev/null", "w", stdout)) return 1;
  } catch (const ibfsim::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  }
  const int code = sc_core::sc_elab_and_sim(argc, argv);
  ibfsim::ranks::finalize();
  return code;
}

int sc_main(int argc, char* argv[]) {
  CLI::App app{"ibfsim: a cycle-accurate InfiniBand fabric simulator"};
  app.set_version_flag("--version", std::string("ibfsim ") + IBFSIM_VERSION_STRING);
  app.require_subcommand(1);

  std::string scenario, out_dir, event_trace, seed, threads;
  std::vector<std::string> sets;
  CLI::App* run = app.add_subcommand("run", "Run a scenario and write its results folder");
  run->add_option("SCENARIO", scenario, "Scenario YAML file")->required();
  run->add_option("-o,--output", out_dir, "Results folder (default: results/<scenario name>)");
  run->add_option("--seed", seed, "Random seed, 0..2^64-1 (default: the scenario's seed)")->type_name("UINT64");
  run->add_option("--set", sets, "Override a scenario key: --set workload.load=0.9 (repeatable)");
  run->add_option("--event-trace", event_trace,
                  "Write every event the simulation runs to FILE (time, event, target, arguments; small runs)");
  run->add_option("--threads", threads,
                  "Partitions of the fabric, each on its own calendar and run on its own thread: 1..1024 or auto "
                  "(default: the scenario's simulation.threads, 1); the results are the same with any number")
      ->type_name("N|auto");

  ibfsim::TopoOptions topo_options;
  CLI::App* topo = ibfsim::add_topo_subcommand(app, topo_options);

  ibfsim::RoutesOptions routes_options;
  CLI::App* routes = ibfsim::add_routes_subcommand(app, routes_options);

  ibfsim::SweepOptions sweep_options;
  CLI::App* sweep = ibfsim::add_sweep_subcommand(app, sweep_options);
  ibfsim::CollectOptions collect_options;
  CLI::App* collect = ibfsim::add_collect_subcommand(app, collect_options);

  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    // No subcommand given, or a word that is none: name it and the subcommands (CLI11 would say
    // "The following argument was not expected" or "A subcommand is required").
    if (app.get_subcommands().empty() && e.get_exit_code() != 0 && argc > 1 && argv[1][0] != '-') {
      std::cerr << fmt::format("error: unknown subcommand '{}': expected {} (ibfsim --help)\n", argv[1], kSubcommands);
      return 2;
    }
    if (app.get_subcommands().empty() && e.get_exit_code() != 0 && argc > 1) {
      std::cerr << fmt::format("error: unknown option '{}': expected a subcommand first: {} (ibfsim --help)\n", argv[1],
                               kSubcommands);
      return 2;
    }
    if (argc == 1) {
      std::cerr << fmt::format("error: expected a subcommand: {} (ibfsim --help)\n", kSubcommands);
      return 2;
    }
    const int code = app.exit(e);
    return code == 0 ? 0 : 2;
  }
  try {
    // Only a run spans ranks (sim/core/rank_exchange.h).
    if (ibfsim::ranks::several() && !*run)
      throw ibfsim::InputError("started as one of " + std::to_string(ibfsim::ranks::size()) +
                               " MPI ranks: only `ibfsim run` runs across ranks; run this command without mpirun");
    if (*run) return run_command(scenario, out_dir, seed, sets, event_trace, threads);
    if (*sweep) return ibfsim::run_sweep_command(sweep_options, std::cout, std::cerr);
    if (*collect) return ibfsim::run_collect_command(collect_options, std::cout, std::cerr);
    if (*topo) return ibfsim::run_topo_command(topo_options, std::cout);
    if (*routes) return ibfsim::run_routes_command(routes_options, std::cout, std::cerr);
  } catch (const ibfsim::InputError& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 2;
  } catch (const ibfsim::OutputError& e) {
    std::cerr << "error: " << e.what() << " (results incomplete)\n";
    return 3;
  } catch (const ibfsim::SimError& e) {
    std::cerr << "simulation error: " << e.what() << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "error: " << e.what() << "\n";
    return 1;
  }
  return 0;
}
