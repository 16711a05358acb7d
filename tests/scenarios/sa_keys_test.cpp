// subnet_manager.sa: the SA's settings are read from a scenario, and bad values are located errors
// (exit 2). What the SA does with them is tested in tests/subnet_manager/sa_in_band_test.cpp.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("subnet_manager.sa settings: bad values are located errors (exit 2)", "[scenarios][input]") {
  const std::string dir = scratch_dir("sa_keys");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";
  const std::pair<std::string, std::string> cases[] = {
      {"subnet_manager: {sa: {latency: fast}}", ":2:32: expected a duration"},
      {"subnet_manager: {sa: {packet_life_time: 64}}", ":2:41: expected an integer in 0..63, got '64'"},
      {"subnet_manager: {sa: {latncy: 2us}}", ":2:23: expected one of the keys latency, packet_life_time"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const std::string path = dir + "/bad.yaml";
    std::ofstream(path) << "topology: " << topo << "\n" << text << "\n";
    const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + message) != std::string::npos);
  }
}
