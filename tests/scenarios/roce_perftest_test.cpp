// scenarios/roce_perftest_write_bw.yaml (`fabric: roce`: ib_write_bw over RoCE v2, h1 - sw1 - sw2 -
// h2 at 100GbE) against figures derived here by hand from the frame format, the byte clock,
// preamble, SFD and inter-frame gap, RS-FEC's 640-byte blocks and the HCA model's defaults; and
// RoCE verbs flows across a leaf-spine. What a RoCE run refuses: roce_refusals_test.cpp.
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
// Twice a figure in ns, as whole femtoseconds (a half round trip can end in half a femtosecond).
std::int64_t twice_fs(double ns) { return std::llround(ns * 2e6); }

// The wire bound of RC WRITEs of `message` bytes over Ethernet at `gbps` with `mtu`-byte packets,
// in Gb/s of payload: each frame holds the line for the inter-frame gap, the preamble and SFD, the
// Ethernet header (and an 802.1Q tag when `vlan`), IPv4, UDP, BTH, its payload, ICRC and FCS; the
// first packet of a message also carries the RETH. RS-FEC at 100GbE takes no line rate (the
// 256b/257b transcoding pays for its parity). The ACKs go the other way and take nothing.
double write_wire_bound_gbps(double gbps, std::uint64_t message, std::uint64_t mtu, bool vlan) {
  constexpr std::uint64_t kIfg = 12, kPreambleSfd = 8, kEthernet = 14, kVlan = 4, kIpv4 = 20, kUdp = 8, kBth = 12,
                          kReth = 16, kIcrc = 4, kFcs = 4;
  const std::uint64_t frames = (message + mtu - 1) / mtu;
  const std::uint64_t per_frame =
      kIfg + kPreambleSfd + kEthernet + (vlan ? kVlan : 0) + kIpv4 + kUdp + kBth + kIcrc + kFcs;
  const std::uint64_t line_bytes = message + frames * per_frame + kReth;
  return gbps * static_cast<double>(message) / static_cast<double>(line_bytes);
}

// The bandwidth this scenario measures (results.json flows[0].bandwidth_gbps, as printed there):
// 1,000 messages of 64 KiB in 5.351784 ms from the first post to the last completion: the line's
// 1,000 x 5,349.12 ns plus 2.66 us for the doorbell, the last frame's trip through the switches,
// its ACK's trip back and the completion; 0.046 % under the bound.
constexpr double kMeasuredGbps = 97.96508977193399;

// The scenario's fabric, by hand (the arithmetic of tests/ethernet/roce_hca_test.cpp): a frame of
// 126 bytes (Ethernet 14, IPv4 20, UDP 8, BTH 12, a 64-byte SEND, ICRC 4, FCS 4) whose first byte
// of preamble leaves its host on edge s reaches the far host's QP (its tail) on the edge this
// returns. Each switch decides on the first 38 bytes (Ethernet, IPv4, UDP ports) after the 8 of
// preamble and SFD; cable 125 edges (10 ns); switch 3,750 edges (300 ns), cut-through. With FEC a
// byte is usable at the end of the 640-byte block holding it (blocks counted from edge 0) plus the
// decoder's 1,250 edges (100 ns).
//   Without FEC, from s = 3,125 (the doorbell's 250 ns after a post at 0): sw1 has the head at
//   s + 46 + 125 = 3,296, eligible 7,046; sw2's head at 7,046 + 171 = 7,217, eligible 10,967; h2
//   has the tail at 10,967 + 134 + 125 = 11,226 edges = 898.08 ns.
//   With RS-FEC: sw1's head at 3,171 -> block end 3,200 + 1,375 = 4,575, eligible 8,325; sw2's
//   head at 8,371 -> 8,960 + 1,375 = 10,335, eligible 14,085; h2's tail at 14,219 -> 14,720 +
//   1,375 = 16,095 edges = 1,287.6 ns.
std::int64_t one_way(std::int64_t s, bool fec) {
  const auto usable = [fec](std::int64_t edge) { return fec ? (edge + 639) / 640 * 640 + 1250 + 125 : edge + 125; };
  const std::int64_t sw1 = usable(s + 8 + 38) + 3750;    // sw1 starts the frame onto sw1 -> sw2
  const std::int64_t sw2 = usable(sw1 + 8 + 38) + 3750;  // sw2 onto sw2 -> h2
  return usable(sw2 + 8 + 126);                          // h2 has the tail
}

}  // namespace

TEST_CASE("roce_perftest_write_bw: RC WRITEs of 64 KiB over 100GbE RS-FEC within 0.2 % of the wire bound",
          "[scenarios][perftest][roce]") {
  // A message is 16 frames: 16 x (12 + 8 + 14 + 20 + 8 + 12 + 4 + 4) + 16 + 65,536 = 66,864 byte
  // times of 80 ps = 5,349.12 ns for 65,536 bytes: 98.0139 Gb/s.
  const double bound = write_wire_bound_gbps(100, 65536, 4096, false);
  REQUIRE(bound == Approx(65536.0 * 8 / (66864 * 0.08)).epsilon(1e-12));
  const nlohmann::json r = run("roce_perftest_write_bw");
  CHECK(r["fabric"] == "roce");
  CHECK(r["roce"]["rate"] == "100GbE RS(528,514)");
  CHECK(r["subnet_manager"]["mode"] == "static");  // no subnet manager: addresses and routes are static
  const auto& f = r["flows"][0];
  CHECK(f["messages_completed"] == 1000);
  CHECK(f["completions"]["IBV_WC_SUCCESS"] == 1000);
  CHECK(f["retransmitted_packets"] == 0);
  const double gbps = f["bandwidth_gbps"].get<double>();
  INFO("measured " << gbps << " Gb/s, bound " << bound);
  // Perftest's figure, bytes over first post to last completion: the start (doorbell, the first
  // message's trip and ACK, the completion) costs a few microseconds of 5.35 ms.
  CHECK(gbps == kMeasuredGbps);
  CHECK(gbps <= bound);
  CHECK(std::abs(gbps - bound) / bound < 0.002);
  // WRITE frames one way and an ACK per message back, every one sent by its host and once by each
  // switch; nothing dropped.
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
// Flow i of the leaf-spine test: h<i> on leaf1 to h<8 + i> on leaf2.
std::string fmt_flow(int i) {
  return "  - {name: w" + std::to_string(i) + ", transport: rc, verb: write, from: h" + std::to_string(i) + ", to: h" +
         std::to_string(8 + i) + ", message_size: 16384, iterations: 8, tx_depth: 4, qp: {mtu: 4096}}\n";
}
}  // namespace

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
