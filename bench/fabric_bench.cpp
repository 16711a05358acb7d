// Simulation speed on a two-level fat tree (leaf-spine) under uniform random UD traffic.
// Prints packet-hops per wall second, simulated time per wall second and peak memory for each
// load. Each load runs in its own child process (SystemC simulates once per process).
// The traffic rates count from the start of traffic: the subnet manager's bring-up before it
// (SMPs, not data) is shown on its own (`--sm static` skips it, as the walking skeleton did).
//
//   fabric_bench [--vls 8] [--leaves 16] [--spines 8] [--hosts-per-leaf 8] [--measure-us 500] [--loads 0.5,0.9]
//                [--calendar fabric-wide|per-module] [--phy timing|bit_exact] [--sm in_band|static]
//
// Figures only; nothing here passes or fails on time.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include <systemc>

#include "sim/core/calendar_process.h"
#include "sim/fabric/topology_generators.h"
#include "sim/workload/scenario_run.h"

using namespace ibfsim;

namespace {

struct Args {
  unsigned leaves = 16, spines = 8, hosts_per_leaf = 8;
  double measure_us = 500;
  std::vector<double> loads = {0.5, 0.9};
  double child_load = -1;
  std::string calendar = "fabric-wide";
  unsigned vls = 8;
  std::string phy = "timing";  // bit_exact: every symbol encoded, striped and decoded (no errors)
  std::string sm = "in_band";   // static: LIDs and routes assigned at time 0, no bring-up
};

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i + 1 < argc; i += 2) {
    std::string k = argv[i], v = argv[i + 1];
    if (k == "--leaves") a.leaves = std::stoul(v);
    else if (k == "--spines") a.spines = std::stoul(v);
    else if (k == "--hosts-per-leaf") a.hosts_per_leaf = std::stoul(v);
    else if (k == "--measure-us") a.measure_us = std::stod(v);
    else if (k == "--child-load") a.child_load = std::stod(v);
    else if (k == "--calendar") a.calendar = v;
    else if (k == "--vls") a.vls = std::stoul(v);
    else if (k == "--phy" && (v == "timing" || v == "bit_exact")) a.phy = v;
    else if (k == "--sm" && (v == "in_band" || v == "static")) a.sm = v;
    else if (k == "--loads") {
      a.loads.clear();
      for (std::size_t p = 0; p < v.size();) {
        std::size_t q = v.find(',', p);
        a.loads.push_back(std::stod(v.substr(p, q - p)));
        p = q == std::string::npos ? v.size() : q + 1;
      }
    } else {
      fmt::print(stderr, "unknown option {}\n", k);
      std::exit(2);
    }
  }
  return a;
}

int run_child(const Args& a) {
  set_calendar_mode(a.calendar == "per-module" ? CalendarMode::kPerModule : CalendarMode::kFabricWide);
  Scenario sc;
  sc.file = "bench";
  sc.topology_file = "generated leaf_spine";
  sc.topology = generate_leaf_spine(a.leaves, a.spines, a.hosts_per_leaf, TopologyDefaults{});
  for (TopoNode& n : sc.topology.nodes) n.op_vls = a.vls;
  sc.seed = 1;
  sc.phy.bit_exact = a.phy == "bit_exact";
  sc.subnet_manager.in_band = a.sm == "in_band";
  WorkloadSpec w;
  w.load = a.child_load;
  w.message_size = 2048;
  sc.flows.push_back(w);
  sc.phases.warmup = 20 * kUs;
  sc.phases.measure = static_cast<Time>(a.measure_us * 1e3) * kNs;
  sc.phases.drain = 50 * kUs;
  const std::string dir = fmt::format("/tmp/ibfsim_bench_{}", getpid());
  const auto t0 = std::chrono::steady_clock::now();
  RunResult r = run_scenario(sc, dir);
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::system(("rm -rf " + dir).c_str());
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const nlohmann::json& sim = r.results["simulation"];
  const double hops = sim["packet_hops"].get<double>() - sim["bring_up_packet_hops"].get<double>();
  const double actions = sim["actions"].get<double>() - sim["bring_up_actions"].get<double>();
  const double sim_us = (r.results["phases"]["end_ns"].get<double>() - r.results["phases"]["start_ns"].get<double>()) / 1e3;
  // Rates use the time inside the simulation kernel from the start of traffic; the whole run
  // (building the fabric, bring-up, writing results) is shown too.
  const double sim_wall = r.simulate_wall_seconds;
  const double sim_cpu = r.simulate_cpu_seconds;
  std::string bring_up = "no bring-up (static)";
  if (a.sm == "in_band")
    bring_up = fmt::format("bring-up {:.1f} us simulated in {:.3f} s, {:.0f} SMP hops",
                           r.results["phases"]["fabric_up_ns"].get<double>() / 1e3, r.bring_up_wall_seconds,
                           sim["bring_up_packet_hops"].get<double>());
  fmt::print("{:>11} {:>9}  {:>5} hosts  load {:.2f}  {:>9.0f} packet-hops  {:>6.3f} s simulating ({:.3f} s in all)  "
             "{:>5.2f} M hops/s ({:.2f} per CPU s)  {:>4.1f} actions/hop  {:>7.1f} us simulated  {:>7.1f} us sim/s  {:>6.1f} MiB peak  "
             "latency mean {:.0f} ns p99 {:.0f} ns  {}\n",
             a.calendar, a.phy, sc.topology.hcas().size(), a.child_load, hops, sim_wall, wall, hops / sim_wall / 1e6,
             hops / sim_cpu / 1e6, actions / hops, sim_us, sim_us / sim_wall, ru.ru_maxrss / 1024.0,
             r.results["latency"]["mean_ns"].get<double>(), r.results["latency"]["p99_ns"].get<double>(), bring_up);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  Args a = parse(argc, argv);
  if (a.child_load > 0) return sc_core::sc_elab_and_sim(argc, argv);
  for (double load : a.loads) {
    std::vector<std::string> args(argv, argv + argc);
    args.push_back("--child-load");
    args.push_back(fmt::format("{}", load));
    std::vector<char*> cargs;
    for (auto& s : args) cargs.push_back(s.data());
    cargs.push_back(nullptr);
    pid_t pid = fork();
    if (pid == 0) {
      execv("/proc/self/exe", cargs.data());
      _exit(127);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return 1;
  }
  return 0;
}

int sc_main(int argc, char** argv) { return run_child(parse(argc, argv)); }
