// How the cost of simulating grows with the fabric: fat trees of 128, 1,024 and 2,048 hosts (two
// levels: leaf-spine, as many spines as hosts per leaf) and 11,664 hosts (three levels,
// topologies/fat_tree_3level_11664.yaml), ftree routing by the in-band subnet manager, 2 KiB UD
// SENDs to uniformly random hosts at load 0.3 (Poisson). Only the traffic phase is measured (the
// bring-up before it is not; a 10 us drain ends it). One `key=value` line per configuration:
//
//   hosts= threads= ranks= hops_per_cpu_s= ns_per_action= cpu_s= wall_s= speedup= cpu_ratio=
//   peak_rss_mb= windows= cut_links= window_ns= actions_per_window= crossings_per_window=
//
// threads: the run's simulation.threads per rank (partitions, each window's partitions on that
// many threads: docs/architecture.md, "Partitions"); ranks: MPI ranks (the configuration runs
// under `mpirun --oversubscribe -np R`); hops_per_cpu_s: data and management packet-hops of the
// traffic phase per CPU second of every thread of every rank; ns_per_action: that CPU time per
// calendar action; cpu_s and wall_s: the traffic phase's CPU time (all threads, all ranks) and
// wall time (the slowest rank's); speedup: wall_s of the first configuration of these hosts over
// this one's, in the same run (cpu_ratio: the same for cpu_s); peak_rss_mb: the peak resident
// memory of the whole run (building, bring-up, results), summed over ranks; windows: the
// synchronisation windows of the traffic phase (they do not depend on the split), window_ns
// their length; actions_per_window: calendar actions per window; crossings_per_window: events
// handed between partitions per window (summed over ranks); cut_links: links between partitions.
// These last four are the inputs of the speedup model in docs/scale.md.
//
//   scale_bench [--hosts 128,1024,2048,11664] [--threads 1,2] [--ranks 1,2] [--measure-us 50]
//
// Each configuration runs in its own child process (SystemC elaborates once per process), or
// under mpirun in R of them.
// Figures only: nothing here passes or fails on time.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <systemc>

#include "sim/core/calendar_process.h"
#include "sim/core/rank_exchange.h"
#include "sim/fabric/topology_generators.h"
#include "sim/fabric/topology_yaml_writer.h"
#include "sim/workload/scenario.h"
#include "sim/workload/scenario_run.h"

using namespace ibfsim;

namespace {

struct Args {
  std::vector<unsigned> hosts = {128, 1024, 2048, 11664};
  std::vector<unsigned> threads = {1};
  std::vector<unsigned> ranks = {1};
  double measure_us = 50;
  unsigned child_hosts = 0;  // set in a child: the one configuration it runs
  unsigned child_threads = 1;
};

[[noreturn]] void usage_error(const std::string& what) {
  fmt::print(stderr, "scale_bench: {}\n", what);
  std::exit(2);
}

std::vector<unsigned> parse_list(const std::string& flag, const std::string& v) {
  std::vector<unsigned> out;
  for (std::size_t p = 0; p <= v.size();) {
    const std::size_t q = std::min(v.find(',', p), v.size());
    const std::string item = v.substr(p, q - p);
    if (item.empty() || item.find_first_not_of("0123456789") != std::string::npos)
      usage_error(fmt::format("{}: expected a comma-separated list of positive integers, got '{}'", flag, v));
    out.push_back(static_cast<unsigned>(std::stoul(item)));
    p = q + 1;
  }
  return out;
}

Args parse(int argc, char** argv) {
  Args a;
  for (int i = 1; i < argc; i += 2) {
    const std::string k = argv[i];
    if (i + 1 >= argc) usage_error(fmt::format("{}: expected a value after it", k));
    const std::string v = argv[i + 1];
    if (k == "--hosts") {
      a.hosts = parse_list(k, v);
      for (unsigned h : a.hosts)
        if (h != 128 && h != 1024 && h != 2048 && h != 11664)
          usage_error(fmt::format("--hosts: expected 128, 1024, 2048 or 11664, got {}", h));
    } else if (k == "--threads") {
      a.threads = parse_list(k, v);
      for (unsigned t : a.threads)
        if (t < 1 || t > 64) usage_error(fmt::format("--threads: expected 1 to 64 threads, got {}", t));
    } else if (k == "--ranks") {
      a.ranks = parse_list(k, v);
      for (unsigned r : a.ranks)
        if (r < 1 || r > 64) usage_error(fmt::format("--ranks: expected 1 to 64 ranks, got {}", r));
      if (!ranks::supported() && (a.ranks.size() > 1 || a.ranks.front() > 1))
        usage_error("--ranks: this build has no MPI (IBFSIM_MPI off: install libopenmpi-dev and reconfigure)");
    } else if (k == "--measure-us") {
      char* end = nullptr;
      a.measure_us = std::strtod(v.c_str(), &end);
      if (end == v.c_str() || *end != '\0' || !(a.measure_us > 0))
        usage_error(fmt::format("--measure-us: expected a positive number of microseconds, got '{}'", v));
    } else if (k == "--child-hosts") {
      a.child_hosts = parse_list(k, v).front();
    } else if (k == "--child-threads") {
      a.child_threads = parse_list(k, v).front();
    } else {
      usage_error(fmt::format("unknown option '{}' (expected --hosts, --threads, --ranks or --measure-us)", k));
    }
  }
  return a;
}

// The fabric of `hosts` hosts, written as YAML into `dir`; returns its path.
std::string write_fabric(unsigned hosts, const std::string& dir) {
  if (hosts == 11664) return std::string(IBFSIM_SOURCE_DIR) + "/topologies/fat_tree_3level_11664.yaml";
  // Full bisection: as many spines as hosts per leaf.
  const unsigned per_leaf = hosts == 128 ? 8 : 32;
  const Topology t = generate_leaf_spine(hosts / per_leaf, per_leaf, per_leaf, TopologyDefaults{});
  const std::string path = dir + "/fabric.yaml";
  std::ofstream(path) << write_topology_yaml(t, fmt::format("scale_bench: leaf-spine, {} hosts", hosts));
  return path;
}

int run_child(const Args& a) {
  const std::string dir = fmt::format("/tmp/ibfsim_scale_bench_{}", getpid());
  std::filesystem::create_directories(dir);
  const std::string scenario = dir + "/scenario.yaml";
  std::ofstream(scenario) << fmt::format(
      "topology: {}\n"
      "seed: 1\n"
      "workload: {{transport: ud_send, destination: random, message_size: 2048, load: 0.3, arrival: poisson}}\n"
      "phases: {{warmup: 0us, measure: {}us, drain: 10us}}\n"
      "subnet_manager: {{routing: ftree}}\n"
      "simulation: {{threads: {}}}\n",
      write_fabric(a.child_hosts, dir), a.measure_us, a.child_threads);
  RunResult r;
  try {
    r = run_scenario(load_scenario(scenario, {}), dir + "/out");
  } catch (const std::exception& e) {
    std::filesystem::remove_all(dir);
    fmt::print(stderr, "scale_bench: {} hosts: {}\n", a.child_hosts, e.what());
    return 1;
  }
  std::filesystem::remove_all(dir);
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const nlohmann::json& sim = r.results["simulation"];
  const double hops = sim["packet_hops"].get<double>() - sim["bring_up_packet_hops"].get<double>();
  const double actions = sim["actions"].get<double>() - sim["bring_up_actions"].get<double>();
  // "partitions: N (method), C of M cables cut; ..." (the run's summary): the cut cables. Its
  // window count is the whole run's; the traffic phase's come with the result.
  const std::size_t p = r.summary.find("partitions: ");
  unsigned long long cut = 0;
  if (p != std::string::npos) {
    const std::size_t c = r.summary.find(", ", p);
    if (c != std::string::npos) cut = std::strtoull(r.summary.c_str() + c + 2, nullptr, 10);
  }
  // Every rank prints its line (the parent sums CPU time, memory and crossings over them).
  fmt::print("rank={} hops={:.0f} actions={:.0f} cpu_s={:.6f} wall_s={:.6f} peak_rss_mb={:.1f} windows={} cut_links={} "
             "window_ns={:.3f} crossings={}\n",
             ranks::rank(), hops, actions, r.simulate_cpu_seconds, r.simulate_wall_seconds, ru.ru_maxrss / 1024.0,
             r.traffic_windows, cut, to_ns(CalendarProcess::shared().window()), r.traffic_crossings);
  std::fflush(stdout);
  return 0;
}

// Runs one configuration in a child process (under mpirun with several ranks) and returns the
// lines it printed, one per rank.
std::string run_configuration(char** argv, unsigned hosts, unsigned threads, unsigned nranks, const Args& a) {
  int out[2];
  if (pipe(out) != 0) usage_error("cannot make a pipe");
  const std::string h = std::to_string(hosts), t = std::to_string(threads), m = fmt::format("{}", a.measure_us);
  const std::string np = std::to_string(nranks), self = std::filesystem::read_symlink("/proc/self/exe").string();
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    if (nranks > 1)
      execlp("mpirun", "mpirun", "--oversubscribe", "-np", np.c_str(), self.c_str(), "--child-hosts", h.c_str(),
             "--child-threads", t.c_str(), "--measure-us", m.c_str(), static_cast<char*>(nullptr));
    else
      execl(self.c_str(), argv[0], "--child-hosts", h.c_str(), "--child-threads", t.c_str(), "--measure-us", m.c_str(),
            static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string lines;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) lines.append(buf, static_cast<std::size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  return lines;
}

double field(const std::string& line, const std::string& key) {
  const std::size_t p = line.find(key + "=");
  return p == std::string::npos ? 0 : std::strtod(line.c_str() + p + key.size() + 1, nullptr);
}

// One configuration's figures from its ranks' lines: work and windows from rank 0 (they are the
// whole run's), CPU time, memory and crossings summed, wall time the slowest rank's.
struct Figures {
  double hops = 0, actions = 0, cpu = 0, wall = 0, rss = 0, windows = 0, cut = 0, window_ns = 0, crossings = 0;
  unsigned lines = 0;
};

Figures sum_ranks(const std::string& lines) {
  Figures f;
  for (std::size_t p = 0; p < lines.size();) {
    const std::size_t q = std::min(lines.find('\n', p), lines.size());
    const std::string line = lines.substr(p, q - p);
    p = q + 1;
    if (line.rfind("rank=", 0) != 0) continue;  // mpirun's own words, if any
    ++f.lines;
    if (field(line, "rank") == 0) {
      f.hops = field(line, "hops");
      f.actions = field(line, "actions");
      f.windows = field(line, "windows");
      f.cut = field(line, "cut_links");
      f.window_ns = field(line, "window_ns");
    }
    f.cpu += field(line, "cpu_s");
    f.wall = std::max(f.wall, field(line, "wall_s"));
    f.rss += field(line, "peak_rss_mb");
    f.crossings += field(line, "crossings");
  }
  return f;
}

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  const Args a = parse(argc, argv);
  if (a.child_hosts) {
    ranks::init(&argc, &argv);
    const int code = sc_core::sc_elab_and_sim(argc, argv);
    ranks::finalize();
    return code;
  }
  int rc = 0;
  for (unsigned hosts : a.hosts) {
    double first_wall = 0, first_cpu = 0;
    for (unsigned nranks : a.ranks)
      for (unsigned threads : a.threads) {
        const Figures f = sum_ranks(run_configuration(argv, hosts, threads, nranks, a));
        if (f.lines != nranks) {
          fmt::print(stderr, "scale_bench: the run of {} hosts on {} rank(s) x {} thread(s) failed\n", hosts, nranks,
                     threads);
          rc = 1;
          continue;
        }
        if (first_wall == 0) {
          first_wall = f.wall;
          first_cpu = f.cpu;
        }
        const double windows = std::max(f.windows, 1.0);
        fmt::print("hosts={} threads={} ranks={} hops_per_cpu_s={:.0f} ns_per_action={:.1f} cpu_s={:.3f} wall_s={:.3f} "
                   "speedup={:.2f} cpu_ratio={:.2f} peak_rss_mb={:.0f} windows={:.0f} cut_links={:.0f} window_ns={:.3f} "
                   "actions_per_window={:.1f} crossings_per_window={:.2f}\n",
                   hosts, threads, nranks, f.hops / f.cpu, f.cpu / f.actions * 1e9, f.cpu, f.wall, first_wall / f.wall,
                   f.cpu / first_cpu, f.rss, f.windows, f.cut, f.window_ns, f.actions / windows,
                   f.crossings / windows);
        std::fflush(stdout);
      }
  }
  return rc;
}

int sc_main(int argc, char** argv) { return run_child(parse(argc, argv)); }
