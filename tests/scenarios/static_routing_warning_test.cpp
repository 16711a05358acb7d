// subnet_manager: static on a tree of three or more switch levels: the run says that its routes are
// unbalanced there, in the printed summary and in results.json; on two levels it says nothing.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

std::string static_run(const std::string& name, const std::string& generate) {
  const std::string dir = scratch_dir(name);
  std::ofstream(dir + "/topo.yaml") << "generate: " << generate << "\n";
  std::ofstream(dir + "/s.yaml") << "topology: topo.yaml\nsubnet_manager: static\nseed: 3\n"
                                    "workload: {message_size: 256, load: 0.1}\n"
                                    "phases: {warmup: 1us, measure: 2us, drain: 20us}\n";
  const CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  REQUIRE(r.exit_code == 0);
  return r.output;
}

const char* const kWarning =
    "subnet_manager: static routes this 3-level tree min-hop per switch, which leaves its upper levels unbalanced "
    "(some top-level ports carry many times their share, and the fabric saturates early); for even routes use "
    "the in-band subnet manager with routing: ftree";

}  // namespace

TEST_CASE("static routing on a 3-level fat tree warns that it is unbalanced", "[scenarios][routing]") {
  const std::string out = static_run("static_warn_3level", "{kind: fat_tree, k: 2, n: 3}");
  CHECK(out.find(std::string("warning: ") + kWarning + "\n") != std::string::npos);
  const nlohmann::json j =
      nlohmann::json::parse(read_file(std::string(IBFSIM_TEST_OUT_DIR) + "/static_warn_3level/out/results.json"));
  CHECK(j["warnings"] == nlohmann::json::array({kWarning}));
}

TEST_CASE("static routing on a leaf-spine says nothing of balance", "[scenarios][routing]") {
  const std::string out = static_run("static_warn_2level", "{kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}");
  CHECK(out.find("warning") == std::string::npos);
}
