// Runs a shell command from a test and captures what it printed (stdout and stderr together).
#pragma once
#include <array>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <string>
#include <stdexcept>
#include <sys/wait.h>

namespace ibfsim::test {

struct CommandResult {
  int exit_code = -1;
  std::string output;
};

inline CommandResult run_command(const std::string& cmd) {
  CommandResult r;
  FILE* f = popen((cmd + " 2>&1").c_str(), "r");
  if (!f) return r;
  std::array<char, 4096> buf{};
  std::size_t n;
  while ((n = fread(buf.data(), 1, buf.size(), f)) > 0) r.output.append(buf.data(), n);
  const int status = pclose(f);
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return r;
}

// `ibfsim run` on a scenario under tests/scenarios/data (or any path), with extra arguments.
inline CommandResult run_ibfsim(const std::string& args) {
  return run_command(std::string("SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ") + IBFSIM_BINARY + " " + args);
}

inline std::string data_path(const std::string& name) {
  return std::string(IBFSIM_SOURCE_DIR) + "/tests/scenarios/data/" + name;
}

inline std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// A fresh, empty folder for one test's outputs, under the build tree (IBFSIM_TEST_OUT_DIR), never
// in the source tree or the current folder.
inline std::string scratch_dir(const std::string& name) {
  const std::string dir = std::string(IBFSIM_TEST_OUT_DIR) + "/" + name;
  run_command("rm -rf '" + dir + "' && mkdir -p '" + dir + "'");
  return dir;
}

}  // namespace ibfsim::test

#include <nlohmann/json.hpp>

#include "sim/report/results_view.h"

namespace ibfsim::test {

// results.json of a results folder with the members its tables hold put back ("ports" from
// ports.csv, port_vls.csv, discards.csv, ...; "links" from links.csv; ...: report/results_view.h):
// what the tests read port, link and QP figures from.
inline nlohmann::json results_and_tables(const std::string& folder) { return results_with_tables(folder); }

// Writes `scenario_yaml` into a fresh folder (topology paths are relative to the repository's
// topologies/), runs it, and returns results.json with its tables (results_and_tables); the run
// must succeed.
inline nlohmann::json run_scenario_text(const std::string& name, const std::string& scenario_yaml,
                                        const std::string& extra_args = "") {
  const std::string dir = scratch_dir(name);
  const std::string path = dir + "/scenario.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/" << scenario_yaml;
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out " + extra_args);
  if (r.exit_code != 0) throw std::runtime_error("ibfsim failed: " + r.output);
  return results_and_tables(dir + "/out");
}

// Sum of a port-level discard reason over every port of the results (with their tables).
inline std::uint64_t discards(const nlohmann::json& results, const std::string& reason) {
  std::uint64_t n = 0;
  for (const auto& p : results["ports"])
    if (p["discards"].contains(reason)) n += p["discards"][reason].get<std::uint64_t>();
  return n;
}

inline const nlohmann::json& port_of(const nlohmann::json& results, const std::string& node, unsigned port) {
  for (const auto& p : results["ports"])
    if (p["node"] == node && p["port"] == port) return p;
  throw std::runtime_error("no port " + node + "/" + std::to_string(port));
}

// Data packets a port sent / received: all of them but the SMPs, which alone use VL15 (R1).
inline std::uint64_t data_tx(const nlohmann::json& results, const std::string& node, unsigned port) {
  const auto& p = port_of(results, node, port);
  return p["tx_packets"].get<std::uint64_t>() - p["vl15_tx_packets"].get<std::uint64_t>();
}
inline std::uint64_t data_rx(const nlohmann::json& results, const std::string& node, unsigned port) {
  const auto& p = port_of(results, node, port);
  return p["rx_packets"].get<std::uint64_t>() - p["vl15_rx_packets"].get<std::uint64_t>();
}

}  // namespace ibfsim::test
