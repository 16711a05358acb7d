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

TEST_CASE("ibfsim routes SCENARIO --threads N: the same LFTs, bring-up time and SMP count with any number of threads") {
  const std::string dir = scratch_dir("routes_scenario_threads");
  std::ofstream(dir + "/s.yaml") << "topology: " << golden("leaf_spine_4x2x4/topology.net") << "\n"
                                 << "subnet_manager: {host: h7}\n";
  const CommandResult one = routes_to(dir + "/s.yaml --threads 1", dir + "/lfts1");
  REQUIRE(one.exit_code == 0);
  CHECK(read_file(dir + "/lfts1") == read_file(golden("leaf_spine_4x2x4/minhop_sm_h7/opensm-lfts.dump")));
  for (const char* n : {"2", "3"}) {
    const std::string out = dir + "/lfts" + n;
    const CommandResult r = routes_to(dir + "/s.yaml --threads " + n, out);
    INFO("--threads " << n << "\n" << r.output);
    REQUIRE(r.exit_code == 0);
    CHECK(read_file(out) == read_file(dir + "/lfts1"));
    CHECK(r.output == one.output);  // "note: in-band bring-up took T of simulated time and N SMPs"
  }
  CommandResult bad = run_ibfsim("routes " + dir + "/s.yaml --threads 0");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("--threads 0: expected a number of threads from 1 to 1024, or auto") != std::string::npos);
  bad = run_ibfsim("routes --topology " + golden("leaf_spine_4x2x4/topology.net") + " --threads 2");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output.find("--threads: only used with a SCENARIO") != std::string::npos);
}

TEST_CASE("ibfsim routes SCENARIO with ftree, a roots file and a compute-node file gives OpenSM's dump") {
  // The scenario names OpenSM's own root and CN files of the golden run (relative paths resolve
  // from the scenario's folder, so they are copied next to it).
  const std::string dir = scratch_dir("routes_scenario_ftree");
  const std::string run = "irregular/ftree_roots_cn/";
  std::ofstream(dir + "/roots.txt") << read_file(golden(run + "root_guids.txt"));
  std::ofstream(dir + "/cns.txt") << "# the compute nodes\n" << read_file(golden(run + "cn_guids.txt"));
  std::ofstream(dir + "/s.yaml") << "topology: " << golden("irregular/topology.net") << "\n"
                                 << "subnet_manager: {routing: ftree, root_guid_file: roots.txt, cn_guid_file: cns.txt}\n";
  CommandResult r = routes_to(dir + "/s.yaml", dir + "/lfts");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(dir + "/lfts") == read_file(golden(run + "opensm-lfts.dump")));
  // The same roots by name (`ibfsim routes --root` sets the scenario's roots).
  std::ofstream(dir + "/s2.yaml") << "topology: " << golden("irregular/topology.net") << "\n"
                                  << "subnet_manager: {routing: ftree, cn_guid_file: cns.txt}\n";
  r = routes_to(dir + "/s2.yaml --root spine1 --root spine2", dir + "/lfts2");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(dir + "/lfts2") == read_file(golden(run + "opensm-lfts.dump")));
  // Bad input names the key.
  std::ofstream(dir + "/bad.yaml") << "topology: " << golden("irregular/topology.net") << "\n"
                                   << "subnet_manager: {routing: minhop, cn_guid_file: cns.txt}\n";
  r = run_ibfsim("routes " + dir + "/bad.yaml");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(dir + "/bad.yaml:2:49: expected cn_guid_file only with routing: ftree") != std::string::npos);
  std::ofstream(dir + "/bad2.yaml") << "topology: " << golden("irregular/topology.net") << "\n"
                                    << "subnet_manager: {routing: ftree, root_guid_file: none.txt}\n";
  r = run_ibfsim("routes " + dir + "/bad2.yaml");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("expected the path of a GUID list file, got '" + dir + "/none.txt' (no such file)") !=
        std::string::npos);
}

TEST_CASE("ibfsim routes --ar-groups: the groups the in-band SM programmed, read back from the switches, equal the "
          "engine's offline",
          "[subnet_manager][cli][adaptive_routing]") {
  // Two leaves of two hosts under three spines: each leaf reaches the other leaf's hosts through
  // any of its three up-ports (3, 4, 5); the spines have one way down to each host, so no group.
  const std::string dir = scratch_dir("routes_ar_groups");
  std::ofstream(dir + "/t.yaml") << "defaults: {link: {speed: EDR, width: 4x}}\n"
                                    "generate: {kind: leaf_spine, leaves: 2, spines: 3, hosts_per_leaf: 2}\n";
  std::ofstream(dir + "/s.yaml") << "topology: " << dir << "/t.yaml\nsubnet_manager: {routing: ar_ftree}\n";
  CommandResult r = routes_to(dir + "/s.yaml --no-lfts --ar-groups", dir + "/in_band");
  REQUIRE(r.exit_code == 0);
  const std::string in_band = read_file(dir + "/in_band");
  CHECK(in_band ==
        "Adaptive routing groups of switch Lid 4 guid 0x0002c90300000005 ('leaf1'): 1 groups, 2 LIDs\n"
        "group 1: ports 3 4 5\n"
        "0x0003 group 1 # Channel Adapter portguid 0x0002c90301000004: 'h3'\n"
        "0x0005 group 1 # Channel Adapter portguid 0x0002c90301000005: 'h4'\n"
        "Adaptive routing groups of switch Lid 6 guid 0x0002c90300000006 ('leaf2'): 1 groups, 2 LIDs\n"
        "group 1: ports 3 4 5\n"
        "0x0001 group 1 # Channel Adapter portguid 0x0002c90301000002: 'h1'\n"
        "0x0002 group 1 # Channel Adapter portguid 0x0002c90301000003: 'h2'\n"
        "Adaptive routing groups of switch Lid 7 guid 0x0002c90300000007 ('spine1'): 0 groups, 0 LIDs\n"
        "Adaptive routing groups of switch Lid 8 guid 0x0002c90300000008 ('spine2'): 0 groups, 0 LIDs\n"
        "Adaptive routing groups of switch Lid 9 guid 0x0002c90300000009 ('spine3'): 0 groups, 0 LIDs\n");
  r = routes_to("--topology " + dir + "/t.yaml --routing ar_ftree --no-lfts --ar-groups", dir + "/offline");
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(dir + "/offline") == in_band);
  // An engine without groups says so.
  r = routes_to("--topology " + dir + "/t.yaml --routing ftree --no-lfts --ar-groups", dir + "/ftree");
  REQUIRE(r.exit_code == 0);
  CHECK(read_file(dir + "/ftree") == "no adaptive routing groups (only the ar_ftree and ar_updn engines compute them)\n");
}
