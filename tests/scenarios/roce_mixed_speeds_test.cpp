// A RoCE run on a topology whose cables state their own Ethernet speeds and lengths (25, 50, 100 and
// 400GbE in one fabric): each switch port's PFC headroom from its own cable's rate, RS-FEC and
// length, to the byte; each port's transmitter on its own byte clock; and the errors of a cable
// speed that does not fit the scenario (exit 2, at the cable).
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/csv_rows.h"
#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

// sw1: h1 on 25GbE over 3 m (port 1), h2 on a cable that says nothing (port 2: roce.speed 100GbE,
// roce.cable_delay 10 ns), sw2 over 20 m of 400GbE (port 3); sw2: h3 on 50GbE over 1 m (port 2).
const char* kTopology =
    "nodes:\n"
    "  - {name: sw1, type: switch, ports: 3}\n"
    "  - {name: sw2, type: switch, ports: 2}\n"
    "  - {name: h1, type: hca}\n"
    "  - {name: h2, type: hca}\n"
    "  - {name: h3, type: hca}\n"
    "cables:\n"
    "  - {from: h1/1, to: sw1/1, speed: 25GbE, length: 3m}\n"
    "  - {from: h2/1, to: sw1/2}\n"
    "  - {from: sw1/3, to: sw2/1, speed: 400GbE, length: 20m}\n"
    "  - {from: h3/1, to: sw2/2, speed: 50GbE, length: 1m}\n";

struct Run {
  int exit_code = 0;
  std::string output, dir;
  nlohmann::json results;
};

Run run(const std::string& name, const std::string& body, const std::string& topology = kTopology) {
  Run r;
  r.dir = scratch_dir(name);
  std::ofstream(r.dir + "/topo.yaml") << topology;
  std::ofstream(r.dir + "/scenario.yaml") << "topology: topo.yaml\n" << body;
  const CommandResult c = run_ibfsim("run " + r.dir + "/scenario.yaml -o " + r.dir + "/out");
  r.exit_code = c.exit_code;
  r.output = c.output;
  if (c.exit_code == 0) r.results = nlohmann::json::parse(read_file(r.dir + "/out/results.json"));
  return r;
}

}  // namespace

// pfc_headroom (ethernet/pfc_headroom.h) of each port, in bytes of its own link: the largest frame
// the pausing port may have started, 8 + 4,222 + 12 = 4,242; the PFC frame 8 + 64 + 12 = 84; the
// sender's frame 4,242; preamble and decision bytes 8 + 62 = 70 (these four: 8,638 at any speed);
// then the cable both ways and the PHY both ways (RS-FEC block + the decoder's 100 ns in edges):
//   sw1/1, 25GbE (320 ps): 3 m = 15 ns = 46.875 -> 47 edges: 94; PHY 2 x (640 + 313) = 1,906: 10,638
//   sw1/2, 100GbE (80 ps): 10 ns = 125 edges: 250; PHY 2 x (640 + 1,250) = 3,780:             12,668
//   sw1/3 and sw2/1, 400GbE (20 ps): 20 m = 100 ns = 5,000 edges: 10,000;
//                        PHY 2 x (1,280 + 5,000) = 12,560:                                     31,198
//   sw2/2, 50GbE (160 ps): 1 m = 5 ns = 31.25 -> 31 edges: 62; PHY 2 x (640 + 625) = 2,530:    11,230
TEST_CASE("RoCE on 25, 50, 100 and 400GbE cables: each switch port's PFC headroom from its own cable",
          "[scenarios][roce][speeds]") {
  const Run r = run("roce_mixed_speeds",
                    "fabric: roce\nroce: {dscp: 26, pfc: {priorities: [3]}}\n"
                    "workload:\n  - {transport: rc, verb: write, from: h1, to: h3, message_size: 65536, iterations: 4}\n");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(r.output.find("fabric: 3 HCAs, 2 switches, 4 cables (1 at 25GbE RS(528,514), 1 at 50GbE RS(544,514), 1 at "
                      "100GbE RS(528,514), 1 at 400GbE RS(544,514))") != std::string::npos);
  std::map<std::string, std::uint64_t> headroom;
  for (const auto& p : r.results["roce"]["pfc"]["ports"]) headroom[p["port"]] = p["headroom_bytes"];
  const std::map<std::string, std::uint64_t> want{
      {"sw1/1", 10'638}, {"sw1/2", 12'668}, {"sw1/3", 31'198}, {"sw2/1", 31'198}, {"sw2/2", 11'230}};
  CHECK(headroom == want);
  const auto& f = r.results["flows"][0];
  CHECK(f["completions"]["IBV_WC_SUCCESS"] == 4);
  CHECK(f["retransmitted_packets"] == 0);
  // Each transmitter on its own byte clock: busy (preamble + frame + gap) x its byte period.
  const auto rows = csv_rows(read_file(r.dir + "/out/ethernet_ports.csv"));
  std::map<std::string, double> period_ps{{"h1,1", 320}, {"sw1,1", 320}, {"h2,1", 80},  {"sw1,2", 80},
                                          {"sw1,3", 20}, {"sw2,1", 20},  {"h3,1", 160}, {"sw2,2", 160}};
  REQUIRE(rows.size() == 9);  // a header and the 8 ports
  const std::vector<std::string>& head = rows[0];
  const auto col = [&head](const std::string& name) {
    return static_cast<std::size_t>(std::find(head.begin(), head.end(), name) - head.begin());
  };
  for (std::size_t i = 1; i < rows.size(); ++i) {
    const std::string port = rows[i][0] + "," + rows[i][1];
    INFO(port);
    const double frames = std::stod(rows[i][col("tx_frames")]);
    const double bytes = std::stod(rows[i][col("tx_bytes")]);
    const double busy_ns = std::stod(rows[i][col("tx_busy_ns")]);
    CHECK(busy_ns == Approx((bytes + 20 * frames) * period_ps.at(port) / 1000).margin(0.001));
  }
  CHECK(std::stoull(rows[1][col("tx_frames")]) > 0);
}

TEST_CASE("a cable's Ethernet speed on InfiniBand, or roce.fec false on a speed that needs RS-FEC, is an error at "
          "the cable",
          "[scenarios][input][roce][speeds]") {
  const std::string flow = "workload:\n  - {transport: rc, verb: write, from: h1, to: h3}\n";
  Run r = run("roce_speed_on_ib", "fabric: infiniband\n" + flow);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("topo.yaml:8:5: expected a cable of an InfiniBand speed (the scenario's fabric is infiniband), "
                      "got one of 25GbE") != std::string::npos);
  r = run("roce_speed_fec_off", "fabric: roce\nroce: {fec: false}\n" + flow);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("topo.yaml:10:5: fabric: roce: expected fec: on on a cable of 400GbE (it always runs "
                      "RS(544,514); roce.fec is false), got a 400GbE cable that says nothing of FEC") !=
        std::string::npos);
}

namespace {
std::int64_t fs_of(const nlohmann::json& ns) { return std::llround(ns.get<double>() * 1e6); }
}  // namespace

// A whole run with real HCAs: UD pings (64-byte SENDs: 134-byte frames with the DETH) between h1 on
// 25GbE and h2 on 100GbE through one cut-through switch, no FEC, 2 m cables, 300 ns; each message
// alone on the fabric. The network latency runs from the frame's first preamble byte to its tail:
//   h1 -> h2: the switch stores the frame whole (its output is faster): the tail at 8 + 134 + 31 =
//     173 edges x 320 ps = 55.36 ns, eligible 355.36 ns (on a 100GbE edge, as every 25GbE edge
//     is), h2's tail 142 + 125 = 267 edges x 80 ps = 21.36 ns later: 376.72 ns, every message.
//   h2 -> h1: the switch cuts through at the head, 8 + 38 + 125 = 171 edges = 13.68 ns, eligible
//     313.68 ns, and starts on the next 25GbE edge: 0 to 240 ps later as the frame's start falls
//     among the 320 ps; h1's tail 173 edges = 55.36 ns after: 369.04 to 369.28 ns.
TEST_CASE("a whole RoCE run: UD pings between a 25GbE and a 100GbE host take the hand-computed time each way",
          "[scenarios][roce][speeds]") {
  const std::string topology =
      "nodes:\n  - {name: sw1, type: switch, ports: 2}\n  - {name: h1, type: hca}\n  - {name: h2, type: hca}\n"
      "cables:\n  - {from: h1/1, to: sw1/1, speed: 25GbE, fec: off}\n  - {from: h2/1, to: sw1/2, speed: 100GbE, "
      "fec: off}\n";
  const std::string roce = "fabric: roce\nroce: {cut_through: true, switch_latency: 300ns}\n"
                           "hca_model: {pcie_unlimited: true}\nphases: {warmup: 0us, measure: 100us, drain: 10us}\n";
  const Run up = run("roce_mixed_ping_up", roce + "workload:\n  - {name: ping, sources: [h1], destination: h2, "
                                                  "message_size: 64, load: 0.001, arrival: constant}\n",
                     topology);
  INFO(up.output);
  REQUIRE(up.exit_code == 0);
  const auto& a = up.results["flows"][0]["network_latency"];
  CHECK(a["count"].get<int>() >= 2);
  CHECK(fs_of(a["min_ns"]) == 376'720'000);
  CHECK(fs_of(a["max_ns"]) == 376'720'000);
  const Run down = run("roce_mixed_ping_down", roce + "workload:\n  - {name: ping, sources: [h2], destination: h1, "
                                                      "message_size: 64, load: 0.001, arrival: constant}\n",
                       topology);
  INFO(down.output);
  REQUIRE(down.exit_code == 0);
  const auto& b = down.results["flows"][0]["network_latency"];
  CHECK(b["count"].get<int>() >= 8);
  CHECK(fs_of(b["min_ns"]) >= 369'040'000);
  CHECK(fs_of(b["max_ns"]) <= 369'280'000);
}
