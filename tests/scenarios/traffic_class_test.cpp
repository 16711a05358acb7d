// Traffic classes end to end on the quickstart fabric (8 hosts on one switch, 4x EDR, 2 m cables,
// switch latency 100 ns), with figures computed by hand from the link timing:
//  * EDR: 2.56 ns per edge, 32 bytes per edge; a 2 KiB UD packet is 2082 bytes + 2 delimiters
//    = 66 edges; a 2 m cable is 10 ns = 4 edges; the switch has the LRH one edge after the head
//    arrives and starts forwarding at the first edge >= head + 100 ns (39.06 edges -> 40).
//  * Host to host through one switch: 4 + 1 + 40 (switch) + 4 + 66 = 115 edges = 294.4 ns from
//    the first symbol to the tail (tests/scenarios/zero_load_latency_test.cpp checks the same path).
#include <catch2/catch.hpp>

#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

constexpr double kEdgeNs = 2.56;

std::string quickstart(const std::string& rest) { return "quickstart.yaml\n" + rest; }

const nlohmann::json& flow(const nlohmann::json& r, const std::string& name) {
  for (const auto& f : r["flows"])
    if (f["name"] == name) return f;
  throw std::runtime_error("no flow " + name);
}

}  // namespace

TEST_CASE("traffic class shift(1) at low load: every message takes 115 edges plus the wait for an edge", "[scenarios][classes]") {
  const nlohmann::json r = run_scenario_text("class_shift", quickstart(R"(
workload: {pattern: shift, shift: 1, load: 0.01, arrival: constant}
phases: {warmup: 10us, measure: 200us, drain: 50us}
)"));
  const auto& f = r["flows"][0];
  CHECK(f["pattern"] == "shift");
  CHECK(f["messages"]["measured_undelivered"] == 0);
  // Only arrivals inside the 200 us window count: constant gaps of 66 edges / 0.01 = 16,896 ns,
  // so each of the 8 sources has 11 or 12 of them there (200 / 16.896 = 11.8).
  CHECK(f["messages"]["measured"].get<int>() >= 8 * 11);
  CHECK(f["messages"]["measured"].get<int>() <= 8 * 12);
  CHECK(f["messages"]["offered"].get<int>() > f["messages"]["measured"].get<int>());
  // No contention: each destination has one source and each packet is alone on its path.
  CHECK(f["network_latency"]["min_ns"].get<double>() == Approx(115 * kEdgeNs).epsilon(1e-12));
  CHECK(f["network_latency"]["max_ns"].get<double>() == Approx(115 * kEdgeNs).epsilon(1e-12));
  // A message arrives between edges: it waits less than one edge for the next one.
  CHECK(f["message_latency"]["min_ns"].get<double>() >= 115 * kEdgeNs);
  CHECK(f["message_latency"]["max_ns"].get<double>() < 116 * kEdgeNs);
  CHECK(r["saturation"]["saturated"] == false);
}

TEST_CASE("ring allreduce and all-to-all rounds on one switch take 116 edges per step", "[scenarios][classes][collective]") {
  // Buffer 8 x 2048: each of the 2(8-1) = 14 steps moves one 2 KiB chunk per host to its right
  // neighbour, every switch output carrying one packet. A host posts its next step the instant
  // the previous chunk's tail arrives; its port first returns that packet's credits with a
  // flow-control packet (6 bytes + 2 delimiters: 1 edge), so each step is 115 + 1 = 116 edges =
  // 296.96 ns, and an iteration 14 x 296.96 = 4157.44 ns. SKIPs are off so nothing else takes
  // the line. The first iteration starts when the subnet manager's last SMP arrives, on an edge of
  // the symbol clock every link shares, and its first step has no flow-control packet ahead of
  // it: 115 + 13 x 116 = 1623 edges = 4154.88 ns.
  const nlohmann::json r = run_scenario_text("class_ring", quickstart(R"(
workload:
  - {name: ring, pattern: ring_allreduce, message_size: 16384, iterations: 3}
phy: {skip_interval_edges: 0}
)"));
  const auto& c = flow(r, "ring")["collective"];
  REQUIRE(c["completed"] == 3);
  CHECK(c["steps"] == 14);
  CHECK(c["per_iteration"][1]["fct_ns"].get<double>() == Approx(14 * 116 * kEdgeNs).epsilon(1e-12));
  CHECK(c["per_iteration"][2]["fct_ns"].get<double>() == Approx(14 * 116 * kEdgeNs).epsilon(1e-12));
  CHECK(c["per_iteration"][0]["fct_ns"].get<double>() == Approx((115 + 13 * 116) * kEdgeNs).epsilon(1e-12));
  // Iterations run back to back.
  CHECK(c["per_iteration"][1]["start_ns"] == c["per_iteration"][0]["end_ns"]);
  // Bus bandwidth: 16384 B x 8 / 4157.44 ns x 2 x 7/8.
  CHECK(c["fct_ns"]["min"].get<double>() == Approx(4154.88));
  CHECK(c["fct_ns"]["max"].get<double>() == Approx(4157.44));
  // 7 rounds of one 2 KiB block: 7 x 296.96 = 2078.72 ns.
  const nlohmann::json a = run_scenario_text("class_a2a", quickstart(R"(
workload:
  - {name: a2a, pattern: all_to_all_rounds, message_size: 2048, iterations: 2}
phy: {skip_interval_edges: 0}
)"));
  const auto& ac = flow(a, "a2a")["collective"];
  REQUIRE(ac["completed"] == 2);
  CHECK(ac["per_iteration"][1]["fct_ns"].get<double>() == Approx(7 * 116 * kEdgeNs).epsilon(1e-12));
  CHECK(ac["algorithm_bandwidth_gbps"].get<double>() > 0);
}

TEST_CASE("every transport and verb of a traffic class delivers every measured message", "[scenarios][classes]") {
  for (const char* tv : {"rc write", "rc read", "rc send", "uc send", "uc write", "ud send", "ud_send send"}) {
    const std::string t(tv);
    const std::string transport = t.substr(0, t.find(' ')), verb = t.substr(t.find(' ') + 1);
    INFO(t);
    const nlohmann::json r = run_scenario_text("class_" + transport + "_" + verb, quickstart(
        "workload: {pattern: uniform, transport: " + transport + ", verb: " + verb +
        ", message_size: [{size: 1024, weight: 3}, {size: 4096, weight: 1}], load: 0.3}\n"
        "phases: {warmup: 5us, measure: 40us, drain: 50us}\n"));
    const auto& f = r["flows"][0];
    CHECK(f["transport"] == transport);
    CHECK(f["messages"]["measured"].get<int>() > 50);
    CHECK(f["messages"]["measured_undelivered"] == 0);
    CHECK(f["error_completions"] == 0);
    CHECK(r["phases"]["drained"] == true);
    // Below saturation the network takes what is offered (to within the messages crossing the
    // window's edges: a few percent of a 40 us window).
    const double offered = f["offered"]["load"], accepted = f["accepted"]["load"];
    CHECK(accepted == Approx(offered).epsilon(0.08));
    // A message's latency is at least its last packet's time in the network.
    CHECK(f["message_latency"]["min_ns"].get<double>() >= f["network_latency"]["min_ns"].get<double>());
    CHECK(f["message_latency"]["p99_9_ns"].get<double>() <= f["message_latency"]["max_ns"].get<double>());
  }
}

TEST_CASE("incast 7 to 1 at load 0.5 saturates: reported as such when the drain runs out", "[scenarios][classes][saturation]") {
  // Offered to h1: 7 x 0.5 = 3.5 of its link. Accepted per source is at most 1/7 = 0.1429 (h1's
  // link carries one link's worth), the switch port to h1 is busy the whole window, and the
  // backlog cannot drain in 20 us: the run stops at the drain limit and says why.
  const nlohmann::json r = run_scenario_text("class_incast", quickstart(R"(
workload: {name: incast, pattern: incast, destination: h1, load: 0.5}
phases: {warmup: 10us, measure: 50us, drain: 20us}
)"));
  const auto& f = r["flows"][0];
  CHECK(f["sources"] == 7);
  CHECK(f["accepted"]["load"].get<double>() <= 1.0 / 7 + 0.002);
  CHECK(f["accepted"]["load"].get<double>() >= 1.0 / 7 - 0.01);
  CHECK(port_of(r, "sw1", 1)["window"]["busy_fraction"].get<double>() <= 1.0);
  CHECK(port_of(r, "sw1", 1)["window"]["busy_fraction"].get<double>() > 0.99);
  // The switch's input buffers fill with packets waiting for h1, so each source waits for credits
  // nearly all the window (its share of h1's link frees a buffer slot 1/7 of the time), while h1
  // takes everything at line rate and the switch's port to it never waits.
  for (int h = 2; h <= 8; ++h) {
    const double stall = port_of(r, "h" + std::to_string(h), 1)["window"]["credit_stall_ns"][0];
    CHECK(stall > 0.9 * 50000);
    CHECK(stall <= 50000);
  }
  CHECK(port_of(r, "sw1", 1)["window"]["credit_stall_ns"][0] == 0.0);
  CHECK(r["saturation"]["saturated"] == true);
  CHECK(r["saturation"]["measured_messages_undelivered"].get<int>() > 0);
  CHECK(r["saturation"]["reason"].get<std::string>().find("not delivered") != std::string::npos);
  CHECK(r["phases"]["end_ns"].get<double>() == Approx(r["phases"]["start_ns"].get<double>() + 80000));
}

TEST_CASE("two traffic classes on different SLs travel on their own VLs and are reported apart", "[scenarios][classes]") {
  // h2 -> h3 on SL 0 and h2 -> h4 on SL 1 (SL s -> VL s): every SL 1 packet crosses sw1's port to
  // h4 on VL 1, and nothing else does.
  const nlohmann::json r = run_scenario_text("class_two_sl", quickstart(R"(
workload:
  - {name: a, pattern: incast, destination: h3, sources: [h2], load: 0.2, sl: 0}
  - {name: b, pattern: incast, destination: h4, sources: [h2], load: 0.1, sl: 1}
phases: {warmup: 5us, measure: 40us, drain: 20us}
)"));
  const auto& a = flow(r, "a");
  const auto& b = flow(r, "b");
  CHECK(a["sl"] == 0);
  CHECK(b["sl"] == 1);
  CHECK(a["messages"]["measured_undelivered"] == 0);
  CHECK(b["messages"]["measured_undelivered"] == 0);
  const auto& p4 = port_of(r, "sw1", 4);
  CHECK(p4["vls"][1]["tx_packets"] == b["messages"]["delivered"]);
  CHECK(p4["vls"][0]["tx_packets"] == 0);
  CHECK(port_of(r, "sw1", 3)["vls"][0]["tx_packets"] == a["messages"]["delivered"]);
  CHECK(a["offered"]["load"].get<double>() > b["offered"]["load"].get<double>());
}

TEST_CASE("traffic class input errors name file, line and what was expected", "[scenarios][classes][input]") {
  struct Case {
    const char* yaml;
    const char* where;
    const char* says;
  };
  const Case cases[] = {
      {"workload: {pattern: transpose}\n", ":2:21:", "square number of hosts"},
      {"workload: {pattern: shift, shift: 8}\n", ":2:35:", "not a multiple"},
      {"workload: {pattern: uniform, transport: ud, verb: read}\n", ":2:51:", "UD carries SENDs only"},
      {"workload: {pattern: ring_allreduce, load: 0.5}\n", ":2:43:", "load-driven patterns"},
      {"workload: {pattern: hotspot, hotspots: [h9]}\n", ":2:41:", "class's hosts"},
      {"workload: {pattern: tornado, dims: [3]}\n", ":2:36:", "product divides"},
      {"workload: {pattern: zigzag}\n", ":2:21:", "a pattern: uniform"},
  };
  for (const Case& c : cases) {
    INFO(c.yaml);
    const std::string dir = scratch_dir("class_bad");
    const std::string path = dir + "/scenario.yaml";
    std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/quickstart.yaml\n" << c.yaml;
    const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + c.where) != std::string::npos);
    CHECK(r.output.find(c.says) != std::string::npos);
  }
}
