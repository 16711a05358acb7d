// What `ibfsim routes` prints, byte for byte against OpenSM's own files in every golden run: the
// LFT dump (through the file engine, which reads OpenSM's dump back), guid2lid, and the command
// itself with the run's engine and options; and its errors.
#include <catch2/catch.hpp>

#include <fstream>
#include <set>
#include <sstream>

#include "sim/core/error.h"
#include "sim/subnet_manager/sm/guid2lid_file.h"
#include "sim/subnet_manager/routing/lft_file.h"
#include "sim/subnet_manager/routing/ucast_lft_dump.h"
#include "tests/subnet_manager/golden_runs.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

std::string write_temp(const std::string& name, const std::string& text) {
  const std::string dir = scratch_dir("routes_output");
  const std::string path = dir + "/" + name;
  std::ofstream(path, std::ios::binary) << text;
  return path;
}

}  // namespace

TEST_CASE("guid2lid is byte for byte OpenSM's in every golden run", "[subnet_manager][golden]") {
  const auto runs = golden_runs();
  REQUIRE(runs.size() == 86);
  for (const GoldenRun& r : runs) {
    const SubnetGraph g = golden_subnet(r);
    std::ostringstream out;
    write_guid2lid(out, g);
    INFO(r.name());
    CHECK(out.str() == slurp(r.dir + "/guid2lid"));
  }
}

TEST_CASE("The file engine loads OpenSM's LFT dump and prints it back byte for byte", "[subnet_manager][golden]") {
  for (const GoldenRun& r : golden_runs()) {
    const SubnetGraph g = golden_subnet(r);
    const RoutingTables t = route_from_lft_file(g, r.dir + "/opensm-lfts.dump");
    std::ostringstream out;
    write_ucast_lft_dump(out, g, t);
    INFO(r.name());
    CHECK(out.str() == slurp(r.dir + "/opensm-lfts.dump"));
  }
}

TEST_CASE("The file engine names the file and line of what it cannot use", "[subnet_manager]") {
  GoldenRun r;
  r.topology = "ring_6";
  r.sm_host = "h1";
  const SubnetGraph g = golden_subnet(r);
  const std::string good = slurp(golden_root() + "/ring_6/minhop/opensm-lfts.dump");
  // ring_6: 12 LIDs, sw0's block first (guid ...0007).
  const std::string header = "Unicast lids [0-12] of switch Lid 6 guid 0x0002c90300000007 ('sw0'):\n";
  REQUIRE(good.rfind(header, 0) == 0);

  const std::string bad_line = write_temp("bad_line.dump", header + "0x0001 002 # ok\nnonsense\n12 lids dumped\n");
  CHECK_THROWS_WITH(route_from_lft_file(g, bad_line),
                    bad_line + ":3: expected a 'Unicast lids' header, a '0xLLLL PPP' entry or 'N lids dumped', got 'nonsense'");
  const std::string high_lid = write_temp("high_lid.dump", header + "0x000d 002\n12 lids dumped\n");
  CHECK_THROWS_WITH(route_from_lft_file(g, high_lid),
                    high_lid + ":2: expected a LID of at most the switch's top 0x000c, got '0x000d 002'");
  const std::string bad_port = write_temp("bad_port.dump", header + "0x0001 009\n12 lids dumped\n");
  CHECK_THROWS_WITH(route_from_lft_file(g, bad_port),
                    bad_port + ": switch 0x0002c90300000007 (line 1): expected egress ports 0..3 for LID 0x0001, got 9");
  const std::string stranger = write_temp(
      "stranger.dump", "Unicast lids [0-12] of switch Lid 10 guid 0x0002c903000000ff ('x'):\n12 lids dumped\n");
  CHECK_THROWS_WITH(route_from_lft_file(g, stranger),
                    stranger + ":1: expected the GUID of a switch of the subnet, got 0x0002c903000000ff ('x')");
  const std::string partial = write_temp("partial.dump", header + "12 lids dumped\n");
  CHECK_THROWS_WITH(route_from_lft_file(g, partial),
                    partial + ": expected an LFT for every switch, got none for 'sw1' (GUID 0x0002c90300000008)");
  const std::string unclosed = write_temp("unclosed.dump", header + "0x0001 002\n");
  CHECK_THROWS_WITH(route_from_lft_file(g, unclosed),
                    unclosed + ":2: expected 'N lids dumped' closing the switch block of line 1, got the end of the file");
  CHECK_THROWS_WITH(route_from_lft_file(g, "no/such.dump"), "no/such.dump: expected an LFT dump (OpenSM's opensm-lfts.dump format), got no such file");
}

TEST_CASE("ibfsim routes prints exactly OpenSM's opensm-lfts.dump for every golden run", "[subnet_manager][golden][cli]") {
  const std::string dir = scratch_dir("routes_cli");
  for (const GoldenRun& r : golden_runs()) {
    std::string args = "routes --topology " + golden_root() + "/" + r.topology + "/topology.net --routing " + r.engine +
                       " --lmc " + std::to_string(r.lmc) + " --sm-host " + r.sm_host;
    // updn's roots by name, ftree's from OpenSM's own root_guids.txt; compute nodes from cn_guids.txt.
    if (!r.roots.empty() && r.engine == "ftree") {
      args += " --root-guid-file " + r.dir + "/root_guids.txt";
    } else if (!r.roots.empty()) {
      const SubnetGraph g = golden_subnet(r);
      for (Guid root : r.roots) args += " --root " + g.nodes[*g.find_node_by_guid(root)].description;
    }
    if (!r.compute_nodes.empty()) args += " --cn-guid-file " + r.dir + "/cn_guids.txt";
    if (r.engine == "nue" && r.nue_max_vls != 1) args += " --nue-max-vls " + std::to_string(r.nue_max_vls);
    const std::string out = dir + "/lfts.dump";
    // Standard output to the file; standard error stays in the result.
    const CommandResult c = run_command("(SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + std::string(IBFSIM_BINARY) + " " + args +
                                        " > " + out + ")");
    INFO(r.name() << ": ibfsim " << args << "\n" << c.output);
    CHECK(c.exit_code == 0);
    // Nothing on standard error, no fallback note; dfsssp, lash and nue say how many layers they used.
    if (r.engine == "dfsssp" || r.engine == "lash" || r.engine == "nue") CHECK_THAT(c.output, Catch::StartsWith("note: " + r.engine + ": "));
    else CHECK(c.output.empty());
    CHECK(read_file(out) == slurp(r.dir + "/opensm-lfts.dump"));
  }
}

TEST_CASE("ibfsim routes --path-sls prints exactly OpenSM's path SLs for every golden run that recorded them",
          "[subnet_manager][golden][cli]") {
  const std::string dir = scratch_dir("routes_cli_sls");
  std::size_t runs = 0;
  for (const GoldenRun& r : golden_runs()) {
    if (!std::filesystem::exists(r.dir + "/path-sls.txt")) continue;
    std::string args = "routes --topology " + golden_root() + "/" + r.topology + "/topology.net --routing " + r.engine +
                       " --sm-host " + r.sm_host + " --no-lfts --path-sls";
    if (r.engine == "nue") args += " --nue-max-vls " + std::to_string(r.nue_max_vls);
    const CommandResult c = run_command("(SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + std::string(IBFSIM_BINARY) + " " + args +
                                        " > " + dir + "/sls.txt)");
    INFO(r.name() << ": ibfsim " << args << "\n" << c.output);
    CHECK(c.exit_code == 0);
    // The golden file less its comment lines; ours for the sources it has (fat_tree_4ary3/lash
    // recorded the switches' only).
    std::string want, got;
    std::set<std::string> sources;
    std::istringstream in(slurp(r.dir + "/path-sls.txt"));
    for (std::string line; std::getline(in, line);)
      if (!line.empty() && line[0] != '#') {
        want += line + "\n";
        sources.insert(line.substr(0, 6));
      }
    std::istringstream ours(read_file(dir + "/sls.txt"));
    for (std::string line; std::getline(ours, line);)
      if (sources.count(line.substr(0, 6))) got += line + "\n";
    CHECK(!want.empty());
    CHECK(got == want);
    ++runs;
  }
  CHECK(runs == 20);  // 7 lash, 7 dfsssp, 6 nue runs with several layers
}

TEST_CASE("ibfsim routes --guid2lid --deadlock-check --no-lfts", "[subnet_manager][cli]") {
  const std::string dir = scratch_dir("routes_cli_extra");
  const std::string net = golden_root() + "/ring_6/topology.net";
  const CommandResult c = run_ibfsim("routes --topology " + net + " --no-lfts --guid2lid --deadlock-check > " + dir + "/out");
  CHECK(c.exit_code == 0);
  const std::string out = read_file(dir + "/out");
  const std::string g2l = slurp(golden_root() + "/ring_6/minhop/guid2lid");
  REQUIRE(out.rfind(g2l, 0) == 0);  // guid2lid first, as OpenSM writes it
  const std::string rest = out.substr(g2l.size());
  CHECK_THAT(rest, Catch::StartsWith("deadlock check: VL 0, 24 channels, "));
  CHECK_THAT(rest, Catch::Contains("VL 0: cycle of 6 channels: "));
  CHECK_THAT(rest, Catch::EndsWith(": deadlock possible\n"));

  const CommandResult d = run_ibfsim("routes --topology " + net + " --routing dfsssp --no-lfts --deadlock-check");
  CHECK(d.exit_code == 0);
  CHECK_THAT(d.output, Catch::Contains("note: dfsssp: 2 layers over 8 VLs (SL i -> VL i)"));
  CHECK_THAT(d.output, Catch::Contains("deadlock check: no cycle in any VL: deadlock-free\n"));
}

TEST_CASE("ibfsim routes rejects bad options with exit code 2", "[subnet_manager][cli]") {
  const std::string net = golden_root() + "/ring_6/topology.net";
  struct Case {
    std::string args, message;
  };
  const Case cases[] = {
      {"routes --topology " + net + " --routing spf",
       "error: --routing: expected one of minhop, updn, dnup, dor, ftree, lash, sssp, dfsssp, nue, file, ar_ftree, ar_updn, got 'spf'"},
      {"routes --topology " + net + " --lmc 8", "error: --lmc: expected 0..7, got 8"},
      {"routes --topology " + net + " --nue-max-vls 2", "error: --nue-max-vls: only used with --routing nue, got --routing minhop"},
      {"routes --topology " + net + " --routing nue --nue-max-vls 16", "error: --nue-max-vls: expected 0..15, got 16"},
      {"routes --topology " + net + " --sm-host nobody", "error: --sm-host: expected a node of " + net + ", got 'nobody'"},
      {"routes --topology " + net + " --routing updn --root h1",
       "error: --root: expected a switch of " + net + " reachable from the SM, got 'h1'"},
      {"routes --topology " + net + " --root sw0", "error: --root: only used with --routing updn or ftree, got --routing minhop"},
      {"routes --topology " + net + " --routing dor --cn-guid-file x",
       "error: --cn-guid-file: only used with --routing ftree, got --routing dor"},
      {"routes --topology " + net + " --routing ftree --root sw0 --root-guid-file x",
       "error: --root and --root-guid-file: expected one of them, got both"},
      {"routes --topology " + net + " --routing ftree --cn-guid-file /no/such/file",
       "error: /no/such/file: expected a readable GUID list file, cannot open it"},
      {"routes --topology " + net + " --routing file", "error: --routing file: expected --lft-file DUMP naming the LFT dump to load"},
      {"routes", "error: ibfsim routes: expected a SCENARIO or --topology FILE, got neither"},
      {"routes x.yaml --topology " + net, "error: ibfsim routes: expected either a SCENARIO or --topology FILE, got both"},
  };
  for (const Case& k : cases) {
    const CommandResult c = run_ibfsim(k.args);
    INFO(k.args << "\n" << c.output);
    CHECK(c.exit_code == 2);
    CHECK_THAT(c.output, Catch::Contains(k.message));
  }
}
