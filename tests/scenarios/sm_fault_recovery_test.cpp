// A link failure during a UD run heals through the subnet manager: both switches at the failed
// cable raise trap 128, the SM sweeps again and routes around it. On two_switches.yaml (h1..h4 on
// sw1, h5..h8 on sw2, two parallel inter-switch cables on ports 35 and 36) minhop spreads h5 and h6
// over the two cables; taking sw1/35 down cuts off whichever of them used it until the re-sweep,
// while the other keeps receiving. results.json measures the outage.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <string>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {
const char* kTwoFlows =
    "two_switches.yaml\n"
    "workload:\n"
    "  - {name: to_h5, sources: [h1], destination: h5, message_size: 1024, load: 0.2, arrival: constant}\n"
    "  - {name: to_h6, sources: [h1], destination: h6, message_size: 1024, load: 0.2, arrival: constant}\n";
}  // namespace

TEST_CASE("a cable that fails mid-run is routed around after trap 128 and a re-sweep, and the outage is reported",
          "[scenarios][faults][subnet_manager]") {
  auto r = run_scenario_text("sm_heal", std::string(kTwoFlows) +
                                            "phases: {warmup: 0us, measure: 300us, drain: 20us}\n"
                                            "faults: [{at: 50us, link: sw1/35, state: down}]\n");
  const double start = r["phases"]["start_ns"], at = start + 50000.0;
  const auto& sweeps = r["subnet_manager"]["sweeps"];
  REQUIRE(sweeps.size() >= 2);
  CHECK(sweeps[0]["trigger"] == "port up");
  CHECK(sweeps[1]["trigger"] == "trap 128");
  CHECK(sweeps[1]["started_ns"].get<double>() > at);
  CHECK(r["subnet_manager"]["traps_received"].get<std::uint64_t>() >= 1);
  // The re-sweep reprogrammed only the LFT blocks that changed. Every LID is below 64, so each switch
  // has one block: sw1's (its routes to h5..h8 over port 35 now use 36) and sw2's (likewise for
  // h1..h4). Two blocks.
  CHECK(sweeps[1]["lft_blocks"] == 2);
  CHECK(sweeps[1]["links"].get<std::uint64_t>() == sweeps[0]["links"].get<std::uint64_t>() - 1);

  REQUIRE(r["faults"].size() == 1);
  const auto& fault = r["faults"][0];
  CHECK(fault["link"] == "sw1/35");
  CHECK(fault["at_ns"].get<double>() == Approx(at));
  const double healed = fault["resweep_done_ns"];
  CHECK(healed == sweeps[1]["done_ns"].get<double>());
  CHECK(fault["outage_ns"].get<double>() == Approx(healed - at));
  // One destination keeps receiving across the fault (a packet every 435 ns or so), the other
  // gets nothing from the fault until the re-sweep has given sw1 its new route.
  std::vector<nlohmann::json> d;
  for (const auto& x : fault["destinations"])
    if (x["node"] == "h5" || x["node"] == "h6") d.push_back(x);
  REQUIRE(d.size() == 2);
  const bool h5_cut = d[0]["gap_ns"].get<double>() > d[1]["gap_ns"].get<double>();
  const auto& cut = h5_cut ? d[0] : d[1];
  const auto& kept = h5_cut ? d[1] : d[0];
  CHECK(kept["gap_ns"].get<double>() < 2000.0);
  CHECK(cut["gap_ns"].get<double>() > 20000.0);
  CHECK(cut["last_delivery_before_ns"].get<double>() < at);
  // Traffic to it resumes once sw1's new LFT block is in, which the re-sweep programs before its
  // last Sets (the ports' states) are answered.
  CHECK(cut["first_delivery_after_ns"].get<double>() > sweeps[1]["started_ns"].get<double>());
  CHECK(cut["first_delivery_after_ns"].get<double>() < healed + 2000.0);
  // Only packets for the cut-off destination were lost, to the failed link; the flow to the other
  // lost none.
  CHECK(r["packets"]["dropped_total"] == r["packets"]["dropped"]["link_down"]);
  CHECK(r["packets"]["dropped"]["link_down"].get<std::uint64_t>() > 0);
  const auto& flows = r["flows"];
  const auto& kept_flow = flows[h5_cut ? 1 : 0];
  const auto& cut_flow = flows[h5_cut ? 0 : 1];
  CHECK(kept_flow["throughput"]["accepted_packets"].get<std::uint64_t>() >
        cut_flow["throughput"]["accepted_packets"].get<std::uint64_t>());
  CHECK(r["phases"]["drained"] == true);
}

TEST_CASE("a cable that comes back after a fault is activated again by the re-sweep its trap causes",
          "[scenarios][faults][subnet_manager]") {
  auto r = run_scenario_text("sm_heal_up", std::string(kTwoFlows) +
                                               "phases: {warmup: 0us, measure: 400us, drain: 20us}\n"
                                               "faults: [{at: 20us, link: sw1/35, state: down}, {at: 40us, link: sw1/35, state: up}]\n");
  const nlohmann::json* link = nullptr;
  for (const auto& l : r["links"])
    if (l["a"] == "sw1/35") link = &l;
  REQUIRE(link != nullptr);
  REQUIRE((*link)["retrained_up_ns"].size() == 1);
  REQUIRE((*link)["retrained_active_ns"].size() == 1);
  // The retrained ports wait in Init until a re-sweep sets them Armed, then Active.
  const double reup = (*link)["retrained_up_ns"][0], react = (*link)["retrained_active_ns"][0];
  CHECK(react > reup);
  bool swept_after_up = false;
  for (const auto& s : r["subnet_manager"]["sweeps"])
    if (s["started_ns"].get<double>() >= reup && s["done_ns"].get<double>() >= react) swept_after_up = true;
  CHECK(swept_after_up);
  CHECK(port_of(r, "sw1", 35)["state"] == "Active");
  CHECK(port_of(r, "sw2", 35)["state"] == "Active");
  CHECK(r["phases"]["drained"] == true);
}

TEST_CASE("with the SM on a switch, its own port going down starts the re-sweep (no trap), and traffic heals",
          "[scenarios][faults][subnet_manager]") {
  // The SM runs on sw1's management port 0: sw1 has LID 1, its SMPs leave through its own ports,
  // and the failure of its port 35 reaches it directly. sw2 still traps to it (by LID 1).
  auto r = run_scenario_text("sm_switch_heal", std::string(kTwoFlows) +
                                                   "subnet_manager: {host: sw1}\n"
                                                   "phases: {warmup: 0us, measure: 300us, drain: 20us}\n"
                                                   "faults: [{at: 50us, link: sw1/35, state: down}]\n");
  const auto& sm = r["subnet_manager"];
  CHECK(sm["host"] == "sw1");
  CHECK(sm["port"] == 0);
  const auto& sweeps = sm["sweeps"];
  REQUIRE(sweeps.size() >= 2);
  CHECK(sweeps[0]["trigger"] == "port up");
  CHECK(sweeps[1]["trigger"] == "port change");
  const double at = r["phases"]["start_ns"].get<double>() + 50000.0;
  CHECK(sweeps[1]["started_ns"].get<double>() == Approx(at));
  CHECK(sweeps[1]["lft_blocks"] == 2);
  // Every port of the fabric was configured: sw1's port 0 by LID 1.
  CHECK(port_of(r, "h1", 1)["state"] == "Active");
  CHECK(r["packets"]["dropped_total"] == r["packets"]["dropped"]["link_down"]);
  const auto& d = r["faults"][0]["destinations"];
  for (const auto& x : d)
    if (x["node"] == "h5" || x["node"] == "h6") CHECK(x["first_delivery_after_ns"].get<double>() > 0);
  CHECK(r["phases"]["drained"] == true);
}

TEST_CASE("a run that ends during a re-sweep still says when the fabric came up", "[scenarios][faults][subnet_manager]") {
  // The cable fails 1 us before the measurement ends; the run drains in 5 us, long before the
  // re-sweep its trap starts is done. The fabric was up: the summary must not say it never was.
  const std::string dir = scratch_dir("sm_resweep_at_end");
  std::ofstream(dir + "/scenario.yaml") << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/" << kTwoFlows
                                        << "phases: {warmup: 0us, measure: 20us, drain: 5us}\n"
                                           "faults: [{at: 19us, link: sw1/35, state: down}]\n";
  const CommandResult run = run_ibfsim("run " + dir + "/scenario.yaml -o " + dir + "/out");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = results_and_tables(dir + "/out");
  const auto& sweeps = r["subnet_manager"]["sweeps"];
  REQUIRE(sweeps.size() == 2);
  CHECK(sweeps[1]["trigger"] == "trap 128");
  CHECK(sweeps[1]["done_ns"].is_null());  // still running at the end
  // The first sweep's SMPs: the count at the end would include the unfinished re-sweep's.
  const std::string up = "(subnet manager on h1: " + std::to_string(sweeps[0]["smps"].get<std::uint64_t>()) +
                         " SMPs, minhop routing)\n";
  CHECK(run.output.find("\nfabric up: ") != std::string::npos);
  CHECK(run.output.find(up) != std::string::npos);
  CHECK(run.output.find("never up") == std::string::npos);
  CHECK(run.output.find("(no traffic)") == std::string::npos);
}
