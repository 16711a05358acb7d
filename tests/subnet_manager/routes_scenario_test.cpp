// `ibfsim routes SCENARIO`: the scenario's in-band bring-up only, then the LFTs read back from the
// switches in OpenSM's dump format, byte for byte what OpenSM produced on the same fabric with the
// SM on the same host (golden data, tests/subnet_manager/golden), and the LIDs in its guid2lid format.
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {
std::string golden(const std::string& rel) { return std::string(IBFSIM_SOURCE_DIR) + "/tests/subnet_manager/golden/" + rel; }
// Runs `ibfsim ARGS > OUT`: standard output to the file, standard error in the result.
CommandResult routes_to(const std::string& args, const std::string& out) {
  return run_command("(SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + std::string(IBFSIM_BINARY) + " routes " + args + " > " + out + ")");
}
}  // namespace

TEST_CASE("ibfsim routes SCENARIO prints the LFTs the in-band SM programmed, as OpenSM's dump") {
  const std::string dir = scratch_dir("routes_scenario");
  std::ofstream(dir + "/s.yaml") << "topology: " << golden("leaf_spine_4x2x4/topology.net") << "\n"
                                 << "subnet_manager: {host: h7}\n";
  CommandResult r = routes_to(dir + "/s.yaml", dir + "/lfts");
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(dir + "/lfts") == read_file(golden("leaf_spine_4x2x4/minhop_sm_h7/opensm-lfts.dump")));
  CHECK(r.output.find("note: in-band bring-up took ") != std::string::npos);
  // Routing options override the scenario's: LMC 2 with the SM back on h1.
  r = routes_to(dir + "/s.yaml --lmc 2 --sm-host h1 --no-lfts --guid2lid", dir + "/g2l");
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(dir + "/g2l") == read_file(golden("leaf_spine_4x2x4/minhop_lmc2/guid2lid")));
  // Without a subnet manager there is nothing to bring up.
  r = run_ibfsim("routes " + dir + "/s.yaml --set subnet_manager=static");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("expected a subnet manager to bring the fabric up") != std::string::npos);
}
