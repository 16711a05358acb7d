// roce.pfc, roce.ecn and roce.dcqcn reach the fabric: results.json's `roce` object shows the
// settings in force, the PFC headroom of every switch port computed from its cable by hand, and
// congestion_control.enabled turning ECN marking and DCQCN on. Bad values: roce_refusals_test.cpp.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

// One short RC WRITE flow over h1 - sw1 - sw2 - h2 at 100GbE with RS-FEC, with `extra` appended.
nlohmann::json run_with(const std::string& name, const std::string& extra, std::string* output = nullptr) {
  const std::string dir = scratch_dir("roce_keys_" + name);
  const std::string path = dir + "/s.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/two_switches_line.yaml\n"
                      << "fabric: roce\n"
                      << "workload:\n  - {transport: rc, from: h1, to: h2, verb: write, message_size: 65536, "
                         "iterations: 4}\n"
                      << extra;
  const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  if (output) *output = r.output;
  return nlohmann::json::parse(read_file(dir + "/out/results.json"));
}

}  // namespace

TEST_CASE("roce.pfc's settings and each switch port's computed headroom are in results.json", "[scenarios][roce]") {
  const nlohmann::json j = run_with(
      "pfc", "roce: {dscp: 26, pfc: {priorities: [3], xoff: 40000, xon: 20000, response_time: 100ns, pause_quanta: 1000}}\n");
  const nlohmann::json& pfc = j["roce"]["pfc"];
  CHECK(pfc["enabled"] == true);
  CHECK(pfc["priorities"] == nlohmann::json::array({3}));
  CHECK(pfc["xoff_bytes"] == 40000);
  CHECK(pfc["xon_bytes"] == 20000);
  CHECK(pfc["headroom"] == "auto");
  CHECK(pfc["pause_quanta"] == 1000);
  // By hand, in bytes at 100GbE (one per 80 ps edge): the largest frame the pausing port may have
  // started (8 + 4,222 + 12 = 4,242), the PFC frame (8 + 64 + 12 = 84), the 10 ns cable both ways
  // (2 x 125), RS-FEC's 640-byte block and 100 ns decoder both ways (2 x (640 + 1,250)), the
  // 100 ns response time (1,250), the sender's started frame (4,242), preamble and the 62 decision
  // bytes (70): 13,918 at every port (every cable is alike).
  REQUIRE(pfc["ports"].size() == 4);
  CHECK(pfc["ports"][0]["port"] == "sw1/1");
  for (const auto& p : pfc["ports"]) CHECK(p["headroom_bytes"] == 13918);
  CHECK(j["roce"]["ecn"]["enabled"] == false);
  CHECK(j["roce"]["dcqcn"]["enabled"] == false);
}

TEST_CASE("congestion_control.enabled turns ECN marking and DCQCN on with fabric: roce, roce.ecn.enabled wins",
          "[scenarios][roce]") {
  std::string out;
  nlohmann::json j = run_with("cc", "congestion_control: {enabled: true, ca: {ccti_timer: 5}}\n"
                                    "roce: {ecn: {kmin: 10000, kmax: 100000, pmax: 0.2}, dcqcn: {increase_period: 300us, "
                                    "additive_increase_mbps: 5, cnp_interval: 4us, increase_bytes: 0, "
                                    "clamp_target_rate: false}}\n",
                              &out);
  const nlohmann::json& r = j["roce"];
  CHECK(r["ecn"] == nlohmann::json({{"enabled", true}, {"kmin_bytes", 10000}, {"kmax_bytes", 100000}, {"pmax", 0.2}}));
  CHECK(r["dcqcn"]["enabled"] == true);
  CHECK(r["dcqcn"]["increase_period_us"] == 300.0);
  CHECK(r["dcqcn"]["additive_increase_mbps"] == 5.0);
  CHECK(r["dcqcn"]["hyper_increase_mbps"] == 400.0);
  CHECK(r["dcqcn"]["cnp_interval_us"] == 4.0);
  CHECK(r["dcqcn"]["increase_bytes"] == 0);
  CHECK(r["dcqcn"]["clamp_target_rate"] == false);
  CHECK(r["dcqcn"]["g"] == 1.0 / 256);
  CHECK(r["pfc"] == nlohmann::json({{"enabled", false}}));
  CHECK(out.find("congestion_control.ca is InfiniBand's (Annex A10) and ignored with fabric: roce") != std::string::npos);
  j = run_with("cc_off", "congestion_control: {enabled: true}\nroce: {ecn: {enabled: false}}\n", &out);
  CHECK(j["roce"]["ecn"]["enabled"] == false);
  CHECK(j["roce"]["dcqcn"]["enabled"] == true);
  CHECK(out.find("DCQCN is on but ECN marking is off") != std::string::npos);
}
