// The bring-up progress line's estimate of the SMPs the subnet manager's first sweep asks for is
// close to what it asks for on real fabrics (its time-left estimate rests on it).
#include <catch2/catch.hpp>

#include "sim/fabric/topology_loader.h"
#include "sim/workload/scenario_run_phases.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

TEST_CASE("bring-up estimate: within a quarter of the SMPs the first sweep asks for", "[scenarios][progress]") {
  for (const char* topology : {"quickstart.yaml", "leaf_spine_128.yaml", "torus_4x4x4.yaml", "dragonfly_72.yaml"}) {
    INFO(topology);
    const std::string path = std::string(IBFSIM_SOURCE_DIR) + "/topologies/" + topology;
    const std::string dir = scratch_dir(std::string("estimate_") + topology);
    const CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml --set topology=" +
                                       path + " --set phases.warmup=0us --set phases.measure=1us --set phases.drain=1us -o " + dir);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    const auto j = nlohmann::json::parse(read_file(dir + "/results.json"));
    const double actual = j["subnet_manager"]["sweeps"][0]["requests"].get<double>();
    const double estimate = static_cast<double>(expected_bring_up_smps(load_topology_file(path)));
    CHECK(estimate > 0.75 * actual);
    CHECK(estimate < 1.25 * actual);
  }
}
