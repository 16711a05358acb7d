// scenarios/roce_perftest_write_bw.yaml (`fabric: roce`: ib_write_bw over RoCE v2, h1 - sw1 - sw2 -
// h2 at 100GbE) against figures derived here by hand from the frame format, the byte clock,
// preamble, SFD and inter-frame gap, RS-FEC's 640-byte blocks and the HCA model's defaults; and
// what a RoCE run refuses, each a located error.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

nlohmann::json run(const std::string& name, const std::string& extra = "") {
  const std::string dir = scratch_dir(name);
  CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/roce_perftest_write_bw.yaml -o " +
                               dir + " " + extra);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(read_file(dir + "/results.json"));
}

// 100GbE: one byte per 80 ps edge of the MAC's clock.
constexpr std::int64_t kEdgeFs = 80'000;
// The bandwidth this scenario measures (results.json flows[0].bandwidth_gbps), exactly.
constexpr double kMeasuredGbps = 0;
// Twice a figure in ns, as whole femtoseconds (a half round trip can end in half a femtosecond).
std::int64_t twice_fs(double ns) { return std::llround(ns * 2e6); }

// The scenario's fabric, by hand (the arithmetic of tests/ethernet/roce_hca_test.cpp): a frame of
// 126 bytes (Ethernet 14, IPv4 20, UDP 8, BTH 12, a 64-byte SEND, ICRC 4, FCS 4) whose first byte
// of preamble leaves its host on edge s reaches the far host's QP (its tail) on the edge this
// returns. Each switch decides on the first 38 bytes (Ethernet, IPv4, UDP ports) after the 8 of
// preamble and SFD; cable 125 edges (10 ns); switch 3,750 edges (300 ns), cut-through. With FEC a
// byte is usable at the end of the 640-byte block holding it plus the decoder's 1,250 edges.
std::int64_t one_way(std::int64_t s, bool fec) {
  const auto usable = [fec](std::int64_t edge) { return fec ? (edge + 639) / 640 * 640 + 1250 + 125 : edge + 125; };
  const std::int64_t sw1 = usable(s + 8 + 38) + 3750;    // sw1 starts the frame onto sw1 -> sw2
  const std::int64_t sw2 = usable(sw1 + 8 + 38) + 3750;  // sw2 onto sw2 -> h2
  return usable(sw2 + 8 + 126);                          // h2 has the tail
}

}  // namespace

TEST_CASE("roce_perftest_write_bw: RC WRITEs of 64 KiB over 100GbE RS-FEC within 0.2 % of the wire bound",
          "[scenarios][perftest][roce]") {
  // The wire bound: WRITE First 14 + 20 + 8 + BTH 12 + RETH 16 + 4,096 + ICRC 4 + FCS 4 = 4,174
  // bytes, Middle and Last 4,158: 4,174 + 15 x 4,158 = 66,544 bytes a message, plus 16 x (7
  // preamble + 1 SFD + 12 inter-frame gap) = 66,864 edges of 80 ps = 5,349.12 ns for 65,536 bytes.
  const double bound = 65536.0 * 8 / (66864 * 0.08);
  REQUIRE(bound == Approx(98.0139).epsilon(1e-5));
  const nlohmann::json r = run("roce_perftest_write_bw");
  CHECK(r["fabric"] == "roce");
  CHECK(r["roce"]["rate"] == "100GbE RS(528,514)");
  CHECK(r["subnet_manager"].is_null());
  const auto& f = r["flows"][0];
  CHECK(f["messages_completed"] == 1000);
  CHECK(f["completions"]["IBV_WC_SUCCESS"] == 1000);
  CHECK(f["retransmitted_packets"] == 0);
  const double gbps = f["bandwidth_gbps"].get<double>();
  INFO("measured " << gbps << " Gb/s, bound " << bound);
  // Perftest's figure, bytes over first post to last completion: the start (doorbell, the first
  // message's trip and ACK, the completion) costs about 2.5 us of 5.35 ms.
  CHECK(gbps <= bound);
  CHECK(gbps == Approx(bound).epsilon(0.002));
  CHECK(gbps == kMeasuredGbps);
  // 16,000 WRITE frames one way and an ACK per message back, every one sent by its host and once
  // by each switch; nothing dropped.
  CHECK(r["packets"]["created"] == r["packets"]["delivered"]);
  CHECK(r["packets"]["dropped_total"] == 0);
  CHECK(r["ethernet"]["switch_dropped"] == 0);
  const std::uint64_t frames = r["packets"]["created"].get<std::uint64_t>();
  CHECK(frames >= 16000);
  CHECK(r["ethernet"]["switch_forwarded"] == 2 * frames);
  CHECK(r["ethernet"]["tx_frames"] == 3 * frames);
  CHECK(r["ethernet"]["rx_frames"] == 3 * frames);
}

TEST_CASE("roce_perftest_write_bw as a SEND latency test: every sample is the hand-computed one-way trip through "
          "two switches",
          "[scenarios][perftest][roce]") {
  // Ping-pong: a side posts its 64-byte SEND (not inline; the ideal host interface reads nothing)
  // wire_to_completion after the peer's arrived, the doorbell takes 250 ns = 3,125 edges, and the
  // peer sees it wire_to_completion (3,125 edges) after its tail: the next post is
  // one_way(one_way(P + 3,125) + 6,250) + 3,125, and each sample is half of that minus P.
  const std::string lat = "--set workload.0.verb=send --set workload.0.test=lat --set workload.0.message_size=64 "
                          "--set workload.0.tx_depth=1 --set workload.0.iterations=100";
  const auto next_post = [](std::int64_t p, bool fec) { return one_way(one_way(p + 3125, fec) + 6250, fec) + 3125; };
  SECTION("without FEC: one way 11,226 edges = 898.08 ns (roce_hca_test's figure), every sample 1,148.08 ns") {
    REQUIRE(one_way(3125, false) * kEdgeFs == 898'080'000);
    const nlohmann::json r = run("roce_perftest_send_lat", lat + " --set roce.fec=false");
    const auto& l = r["flows"][0]["latency"];
    CHECK(r["flows"][0]["completions"]["IBV_WC_SUCCESS"] == 100);
    const std::int64_t sample_x2 = next_post(0, false) * kEdgeFs;
    REQUIRE(sample_x2 == 2 * std::int64_t{1'148'080'000});
    CHECK(twice_fs(l["min_ns"].get<double>()) == sample_x2);
    CHECK(twice_fs(l["typical_ns"].get<double>()) == sample_x2);
    CHECK(twice_fs(l["max_ns"].get<double>()) == sample_x2);
  }
  SECTION("with RS-FEC: the first trip is 1,287.6 ns (roce_hca_test's figure); samples as the blocks fall") {
    REQUIRE(one_way(3125, true) * kEdgeFs == 1'287'600'000);
    const nlohmann::json r = run("roce_perftest_send_lat_fec", lat);
    const auto& l = r["flows"][0]["latency"];
    std::vector<std::int64_t> x2;  // twice each sample, fs
    std::int64_t p = 0;
    for (int i = 0; i < 99; ++i) {
      const std::int64_t q = next_post(p, true);
      x2.push_back((q - p) * kEdgeFs);
      p = q;
    }
    CHECK(l["count"] == 99);
    CHECK(twice_fs(l["min_ns"].get<double>()) == *std::min_element(x2.begin(), x2.end()));
    CHECK(twice_fs(l["max_ns"].get<double>()) == *std::max_element(x2.begin(), x2.end()));
  }
}

namespace {
// A RoCE scenario on the two-switch line with `body` after its first lines; exit 2, and the output.
std::string rejected(const std::string& name, const std::string& body, std::string& path) {
  const std::string dir = scratch_dir("roce_bad_" + name);
  path = dir + "/bad.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/two_switches_line.yaml\n" << body;
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  return r.output;
}
// Flow i of the leaf-spine test: h<i> on leaf1 to h<8 + i> on leaf2.
std::string fmt_flow(int i) {
  return "  - {name: w" + std::to_string(i) + ", transport: rc, verb: write, from: h" + std::to_string(i) + ", to: h" +
         std::to_string(8 + i) + ", message_size: 16384, iterations: 8, tx_depth: 4, qp: {mtu: 4096}}\n";
}
const std::string kRoceFlow = "fabric: roce\nworkload:\n  - {transport: rc, from: h1, to: h2, verb: write}\n";
}  // namespace

TEST_CASE("fabric: roce refuses what it does not support yet, each at its key", "[scenarios][input][roce]") {
  std::string path;
  std::string out = rejected("kind", "fabric: ethernet\n", path);
  CHECK(out.find(path + ":2:9: expected infiniband or roce, got 'ethernet'") != std::string::npos);
  out = rejected("section", "roce: {speed: 100GbE}\n", path);
  CHECK(out.find(path + ":2:7: expected no `roce:` section without fabric: roce") != std::string::npos);
  out = rejected("speed", kRoceFlow + "roce: {speed: 40GbE}\n", path);
  CHECK(out.find(path + ":5:15: expected an Ethernet speed: 25GbE, 50GbE, 100GbE, 200GbE or 400GbE") != std::string::npos);
  out = rejected("fec", kRoceFlow + "roce: {speed: 200GbE, fec: false}\n", path);
  CHECK(out.find(path + ":5:29: expected fec: true at this speed, got 200GbE (200GBASE-R, PAM4) always runs RS(544,514)") !=
        std::string::npos);
  out = rejected("class", "fabric: roce\nworkload:\n  - {name: c, pattern: permutation, load: 0.5}\n", path);
  CHECK(out.find(path + ":3:3: expected no traffic classes with fabric: roce (not supported on RoCE yet), got class 'c'") !=
        std::string::npos);
  out = rejected("generator", "fabric: roce\nworkload: {name: g, load: 0.5}\n", path);
  CHECK(out.find(path + ":3:11: expected no UD generator flows with fabric: roce") != std::string::npos);
  out = rejected("faults", kRoceFlow + "faults:\n  - {at: 1us, link: sw1/2, state: down}\n", path);
  CHECK(out.find(path + ":6:3: expected no `faults:` section") != std::string::npos);
  out = rejected("pcap", kRoceFlow + "outputs: {pcap: true}\n", path);
  CHECK(out.find(path + ":5:10: expected no capture (outputs.pcap) with fabric: roce") != std::string::npos);
  out = rejected("threads", kRoceFlow + "simulation: {threads: 2}\n", path);
  CHECK(out.find(path + ":5:23: expected 1 with fabric: roce (the Ethernet modules are not split into partitions yet), "
                        "got 2") != std::string::npos);
}

TEST_CASE("fabric: roce on the 128-host leaf-spine: WRITE flows between leaves cross one spine each, every byte "
          "checked",
          "[scenarios][roce]") {
  // Four flows from leaf1 to leaf2 (h1 -> h9, ...), 8 WRITEs of 16 KiB each (4 frames a message),
  // data checked. Every frame, WRITE or ACK, crosses leaf, spine, leaf: three switches.
  std::string flows;
  for (int i = 1; i <= 4; ++i)
    flows += fmt_flow(i);
  const std::string dir = scratch_dir("roce_leaf_spine");
  const std::string path = dir + "/leaf_spine.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/leaf_spine_128.yaml\nfabric: roce\n"
                      << "outputs: {data_check: true}\nworkload:\n" << flows;
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(read_file(dir + "/out/results.json"));
  REQUIRE(j["flows"].size() == 4);
  for (const auto& f : j["flows"]) {
    CHECK(f["completions"]["IBV_WC_SUCCESS"] == 8);
    CHECK(f["data_check"]["passed"] == true);
    CHECK(f["retransmitted_packets"] == 0);
  }
  const std::uint64_t frames = j["packets"]["created"].get<std::uint64_t>();
  CHECK(frames >= 4 * 8 * 4);
  CHECK(j["packets"]["delivered"] == frames);
  CHECK(j["ethernet"]["switch_forwarded"] == 3 * frames);
  CHECK(j["ethernet"]["tx_frames"] == 4 * frames);
  CHECK(j["ethernet"]["switch_dropped"] == 0);
}
