// Bad input stops the run before simulation with exit code 2 and a message naming file:line:col.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {
std::string write_scenario(const std::string& dir, const std::string& text) {
  const std::string path = dir + "/bad.yaml";
  std::ofstream(path) << text;
  return path;
}
}  // namespace

TEST_CASE("an unknown scenario key is reported with file, line and column, exit code 2", "[scenarios][input]") {
  const std::string dir = scratch_dir("bad_key");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";
  const std::string path = write_scenario(dir, "topology: " + topo + "\nworkload:\n  lod: 0.5\n");
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ":3:3:") != std::string::npos);
  CHECK(r.output.find("'lod'") != std::string::npos);
}

TEST_CASE("a load out of range is an error naming the value", "[scenarios][input]") {
  const std::string dir = scratch_dir("bad_load");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";
  const std::string path = write_scenario(dir, "topology: " + topo + "\nworkload: {load: 1.5}\n");
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ":2:") != std::string::npos);
  CHECK(r.output.find("(0, 1]") != std::string::npos);
}

TEST_CASE("a --set override changes a scenario key, and a bad --set value is an input error", "[scenarios][input]") {
  const std::string dir = scratch_dir("set");
  CommandResult ok = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + dir +
                                " --set workload.message_size=512 --set phases.measure=5us");
  INFO(ok.output);
  REQUIRE(ok.exit_code == 0);
  const std::string results = read_file(dir + "/results.json");
  CHECK(results.find("\"message_size_bytes\": 512") != std::string::npos);
  CHECK(results.find("\"measure_ns\": 5000.0") != std::string::npos);
  CommandResult bad = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + dir + " --set workload.mtu=3000");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("--set") != std::string::npos);
}

TEST_CASE("a missing scenario file and an unknown option exit with code 2", "[scenarios][input]") {
  CHECK(run_ibfsim("run /nonexistent/scenario.yaml").exit_code == 2);
  CHECK(run_ibfsim("run --no-such-flag x.yaml").exit_code == 2);
  CommandResult v = run_ibfsim("--version");
  CHECK(v.exit_code == 0);
  CHECK(v.output == "ibfsim " IBFSIM_VERSION_STRING "\n");
}

TEST_CASE("phases.start, link.training_delay and phy.skip_interval_edges accept only what they document", "[scenarios][input]") {
  const std::string dir = scratch_dir("bad_start");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";
  std::string path = write_scenario(dir, "topology: " + topo + "\nphases:\n  start: soon\n");
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ":3:10: expected links_up or a duration") != std::string::npos);
  path = write_scenario(dir, "topology: " + topo + "\nlink: {training_delay: 3}\n");
  r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ":2:") != std::string::npos);
  CHECK(r.output.find("'3'") != std::string::npos);
  path = write_scenario(dir, "topology: " + topo + "\nphy:\n  skip_interval_edges: 3\n");
  r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ":3:24: expected 0 (no SKIPs) or a number of edges in 5..4294967296") !=
        std::string::npos);
}
