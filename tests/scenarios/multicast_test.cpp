// Multicast forwarding (MFT): switches replicate along the group's tree, every member receives
// each packet exactly once, non-members never, and the ledger retires each original.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("a multicast group on one switch: each member gets every packet once, others none",
          "[scenarios][multicast]") {
  auto r = run_scenario_text("mcast_one",
                             "quickstart.yaml\n"
                             "multicast: [{name: g1, members: [h2, h3, h4]}]\n"
                             "workload: {sources: [h1], destination: g1, message_size: 1024, load: 0.3, arrival: constant}\n"
                             "phases: {warmup: 0us, measure: 20us, drain: 10us}\n");
  // Data packets only: the subnet manager's SMPs (VL15) cross the same ports.
  const std::uint64_t sent = data_tx(r, "h1", 1);
  REQUIRE(sent > 20);
  for (const char* m : {"h2", "h3", "h4"}) CHECK(data_rx(r, m, 1) == sent);
  for (const char* n : {"h5", "h6", "h7", "h8"}) CHECK(data_rx(r, n, 1) == 0);
  CHECK(data_tx(r, "sw1", 1) == 0);  // never back out of the input
  CHECK(r["packets"]["delivered"] == 3 * sent);
  CHECK(r["packets"]["replicated"] == sent);
  CHECK(r["packets"]["dropped_total"] == 0);
  CHECK(r["flows"][0]["latency"]["count"] == 3 * sent);
}

TEST_CASE("a multicast tree across two switches carries one copy per packet over one inter-switch cable",
          "[scenarios][multicast]") {
  auto r = run_scenario_text("mcast_two",
                             "two_switches.yaml\n"
                             "multicast: [{name: g, members: [h2, h6, h7]}]\n"
                             "workload: {sources: [h1], destination: g, message_size: 1024, load: 0.3, arrival: constant}\n"
                             "phases: {warmup: 0us, measure: 20us, drain: 10us}\n");
  const std::uint64_t sent = data_tx(r, "h1", 1);
  REQUIRE(sent > 20);
  for (const char* m : {"h2", "h6", "h7"}) CHECK(data_rx(r, m, 1) == sent);
  for (const char* n : {"h3", "h4", "h5", "h8"}) CHECK(data_rx(r, n, 1) == 0);
  // sw1 forwards one copy to h2 and one over the tree link; sw2 one to h6 and one to h7.
  std::uint64_t sw1_tx = 0, sw2_tx = 0;
  for (const auto& p : r["ports"]) {
    const std::uint64_t data = p["tx_packets"].get<std::uint64_t>() - p["vl15_tx_packets"].get<std::uint64_t>();
    if (p["node"] == "sw1") sw1_tx += data;
    if (p["node"] == "sw2") sw2_tx += data;
  }
  CHECK(sw1_tx == 2 * sent);
  CHECK(sw2_tx == 2 * sent);
  CHECK(r["packets"]["replicated"] == 2 * sent);  // one original retired at each switch
  CHECK(r["packets"]["delivered"] == 3 * sent);
}

TEST_CASE("a member that sends to its own group does not get its packets back", "[scenarios][multicast]") {
  auto r = run_scenario_text("mcast_self",
                             "quickstart.yaml\n"
                             "multicast: [{name: g, members: [h2, h3]}]\n"
                             "workload: {sources: [h2], destination: g, message_size: 256, load: 0.2}\n"
                             "phases: {warmup: 0us, measure: 10us, drain: 10us}\n");
  const std::uint64_t sent = data_tx(r, "h2", 1);
  CHECK(data_rx(r, "h3", 1) == sent);
  CHECK(data_rx(r, "h2", 1) == 0);
  CHECK(r["packets"]["delivered"] == sent);
}
