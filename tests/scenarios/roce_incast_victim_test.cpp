// scenarios/roce_incast_victim.yaml: the cc_victim study on RoCE v2, run without and with DCQCN.
// Without congestion control PFC spreads the incast's congestion to leaf1's uplink and the victim
// collapses; with ECN marking and DCQCN it gets at least 90 % of its fair share. The runs are
// deterministic (seed 1): their figures are asserted exactly, and the bounds beside them.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

struct Run {
  nlohmann::json results;
  std::string dir;
};

Run run(const std::string& name, const std::string& extra) {
  const std::string dir = scratch_dir(name);
  const CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/roce_incast_victim.yaml -o " +
                                     dir + " " + extra);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return {nlohmann::json::parse(read_file(dir + "/results.json")), dir};
}

// The line of `file` (a CSV) that starts with `key`.
std::string csv_row(const std::string& file, const std::string& key) {
  std::istringstream in(read_file(file));
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key, 0) == 0) return line;
  return "";
}

// 3/4 of the wire bound of 64 KiB WRITEs at 100GbE (roce_perftest_test.cpp): c1 is entitled to a
// quarter of hot's link, the victim to the rest of leaf1's uplink.
constexpr double kFairShareGbps = 0.75 * 98.01388888888889;

}  // namespace

TEST_CASE("roce_incast_victim: PFC alone collapses the victim, DCQCN gives it its fair share", "[scenarios][roce]") {
  const Run off = run("roce_incast_victim_off", "");
  const nlohmann::json& flows = off.results["flows"];
  REQUIRE(flows.size() == 5);
  CHECK(flows[4]["name"] == "victim");
  CHECK(flows[4]["bytes_completed"] == 21430272);
  CHECK(flows[4]["bandwidth_gbps"] == 34.14898712808273);
  CHECK(flows[4]["bandwidth_gbps"].get<double>() < 0.5 * kFairShareGbps);
  CHECK(off.results["ethernet"]["pause_frames_sent"] == 444);
  CHECK(off.results["ethernet"]["ecn_marked"] == 0);
  CHECK(off.results["ethernet"]["switch_dropped"] == 0);
  // The spread, port by port: spine pauses every leaf's uplink, leaf1 pauses both its hosts.
  CHECK(csv_row(off.dir + "/ethernet_priorities.csv", "spine,1,") == "spine,1,3,34,34,0,0,0.000,0");
  CHECK(csv_row(off.dir + "/ethernet_priorities.csv", "leaf1,3,") == "leaf1,3,3,0,0,34,34,1415065.600,0");
  CHECK(csv_row(off.dir + "/ethernet_priorities.csv", "leaf1,2,") == "leaf1,2,3,8,8,0,0,0.000,0");
  CHECK(csv_row(off.dir + "/ethernet_ports.csv", "v,1,") ==
        "v,1,5232,21759888,343,22606,1749162.240,0,0,16,309862.400,0");

  const Run on = run("roce_incast_victim_on", "--set congestion_control.enabled=true");
  const nlohmann::json& f = on.results["flows"];
  CHECK(f[4]["bytes_completed"] == 49479680);
  CHECK(f[4]["bandwidth_gbps"] == 78.84391258276037);
  CHECK(f[4]["bandwidth_gbps"].get<double>() >= 0.9 * kFairShareGbps);
  CHECK(on.results["ethernet"]["pause_frames_sent"] == 0);
  CHECK(on.results["ethernet"]["ecn_marked"] == 669);
  CHECK(on.results["dcqcn"] == nlohmann::json({{"cnps_received", 30}, {"cnps_sent", 30}, {"rate_cuts", 30}}));
  CHECK(csv_row(on.dir + "/dcqcn_hcas.csv", "hot,") == "hot,18,0,0,0,0");
  CHECK(csv_row(on.dir + "/dcqcn_qps.csv", "c1,") == "c1,257,5,5,10,81,0,0,91,15.660000,0.700859");
  CHECK(csv_row(on.dir + "/ethernet_switches.csv", "spine,") == "spine,21297,0,0,0,0,881688,553");
}
