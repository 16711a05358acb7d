// How the cost of simulating grows with the fabric: fat trees of 128, 1,024 and 2,048 hosts (two
// levels: leaf-spine, as many spines as hosts per leaf) and 11,664 hosts (three levels,
// topologies/fat_tree_3level_11664.yaml), ftree routing by the in-band subnet manager, 2 KiB UD
// SENDs to uniformly random hosts at load 0.3 (Poisson). Only the traffic phase is measured (the
// bring-up before it is not; a 10 us drain ends it). One `key=value` line per configuration:
//
//   hosts= threads= ranks= hops_per_cpu_s= ns_per_action= wall_s= speedup= peak_rss_mb= windows= cut_links=
//
// threads: the run's simulation.threads (partitions, each window's partitions on that many
// threads: docs/architecture.md, "Partitions"); hops_per_cpu_s: data and management packet-hops
// of the traffic phase per CPU second of the process (every thread); ns_per_action: that CPU time
// per calendar action; cpu_s and wall_s: the traffic phase's CPU time (all threads) and wall time;
// speedup: wall_s of the first thread count listed over this configuration's, in the same run
// (cpu_ratio: the same for cpu_s); peak_rss_mb: the child process's peak resident memory (the
// whole run: building, bring-up, results); windows and cut_links: the synchronisation windows and
// the links between partitions (windows are run whatever the threads: they do not depend on the
// split).
//
//   scale_bench [--hosts 128,1024,2048,11664] [--threads 1,2] [--measure-us 50]
//
// Each configuration runs in its own child process (SystemC elaborates once per process).
// Figures only: nothing here passes or fails on time.
#include <fmt/format.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include <systemc>

#include "sim/fabric/topology_generators.h"
#include "sim/fabric/topology_yaml_writer.h"
#include "sim/workload/scenario.h"
#include "sim/workload/scenario_run.h"

using namespace ibfsim;

namespace {

struct Args {
  std::vector<unsigned> hosts = {128, 1024, 2048, 11664};
  std::vector<unsigned> threads = {1};
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
      usage_error(fmt::format("unknown option '{}' (expected --hosts, --threads or --measure-us)", k));
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
  // "partitions: N (method), C of M cables cut; W windows of ..." (the run's summary).
  const std::size_t p = r.summary.find("partitions: ");
  unsigned long long cut = 0, windows = 0;
  if (p != std::string::npos) {
    const std::size_t c = r.summary.find(", ", p), w = r.summary.find("; ", p);
    if (c != std::string::npos) cut = std::strtoull(r.summary.c_str() + c + 2, nullptr, 10);
    if (w != std::string::npos) windows = std::strtoull(r.summary.c_str() + w + 2, nullptr, 10);
  }
  fmt::print("hops={:.0f} actions={:.0f} cpu_s={:.6f} wall_s={:.6f} peak_rss_mb={:.1f} windows={} cut_links={}\n", hops,
             actions, r.simulate_cpu_seconds, r.simulate_wall_seconds, ru.ru_maxrss / 1024.0, windows, cut);
  return 0;
}

// Runs one configuration in a child process and returns the line it printed.
std::string run_configuration(char** argv, unsigned hosts, unsigned threads, const Args& a) {
  int out[2];
  if (pipe(out) != 0) usage_error("cannot make a pipe");
  const std::string h = std::to_string(hosts), t = std::to_string(threads), m = fmt::format("{}", a.measure_us);
  const pid_t pid = fork();
  if (pid == 0) {
    dup2(out[1], STDOUT_FILENO);
    close(out[0]);
    close(out[1]);
    execl("/proc/self/exe", argv[0], "--child-hosts", h.c_str(), "--child-threads", t.c_str(), "--measure-us", m.c_str(),
          static_cast<char*>(nullptr));
    _exit(127);
  }
  close(out[1]);
  std::string line;
  char buf[512];
  for (ssize_t n; (n = read(out[0], buf, sizeof buf)) > 0;) line.append(buf, static_cast<std::size_t>(n));
  close(out[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) return {};
  return line;
}

double field(const std::string& line, const std::string& key) {
  const std::size_t p = line.find(key + "=");
  return p == std::string::npos ? 0 : std::strtod(line.c_str() + p + key.size() + 1, nullptr);
}

}  // namespace

int main(int argc, char** argv) {
  setenv("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE", "1", 1);
  const Args a = parse(argc, argv);
  if (a.child_hosts) return sc_core::sc_elab_and_sim(argc, argv);
  int rc = 0;
  for (unsigned hosts : a.hosts) {
    double first_wall = 0, first_cpu = 0;
    for (unsigned threads : a.threads) {
      const std::string line = run_configuration(argv, hosts, threads, a);
      if (line.empty()) {
        fmt::print(stderr, "scale_bench: the run of {} hosts on {} threads failed\n", hosts, threads);
        rc = 1;
        continue;
      }
      const double cpu = field(line, "cpu_s"), wall = field(line, "wall_s");
      if (first_wall == 0) {
        first_wall = wall;
        first_cpu = cpu;
      }
      fmt::print("hosts={} threads={} ranks=1 hops_per_cpu_s={:.0f} ns_per_action={:.1f} cpu_s={:.3f} wall_s={:.3f} "
                 "speedup={:.2f} cpu_ratio={:.2f} peak_rss_mb={:.0f} windows={:.0f} cut_links={:.0f}\n",
                 hosts, threads, field(line, "hops") / cpu, cpu / field(line, "actions") * 1e9, cpu, wall,
                 first_wall / wall, cpu / first_cpu, field(line, "peak_rss_mb"), field(line, "windows"),
                 field(line, "cut_links"));
      std::fflush(stdout);
    }
  }
  return rc;
}

int sc_main(int argc, char** argv) { return run_child(parse(argc, argv)); }
