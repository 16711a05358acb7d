// Every kind of workload on `fabric: roce` (workload/roce_workloads.h): UD generator flows, traffic
// classes, NCCL-style collectives and the trace replay, built as on InfiniBand on the RoCE HCAs.
// Figures by hand from the frame format and the 100GbE byte clock (80 ps an edge, one byte each;
// the arithmetic of tests/ethernet/roce_hca_test.cpp): a frame of B bytes holds its link for
// 8 (preamble, SFD) + B + 12 (gap) edges; a cut-through switch decides on the first 38 bytes
// (Ethernet 14, IPv4 20, UDP ports 4) and starts the frame 300 ns (3,750 edges) later; a cable
// is 10 ns (125 edges); no FEC.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/csv_rows.h"
#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

constexpr std::int64_t kEdgeFs = 80'000;

// Edges from the first preamble byte of a frame of `frame` bytes at its host to its tail at a host
// `switches` cut-through switches away.
std::int64_t trip_edges(int switches, std::int64_t frame) {
  return switches * (8 + 38 + 125 + 3750) + 8 + frame + 125;
}

const char* kRoce = R"(
fabric: roce
roce: {speed: 100GbE, fec: false, cable_delay: 10ns, cut_through: true, switch_latency: 300ns}
hca_model: {pcie_unlimited: true}
)";

struct Run {
  std::string output, dir;
  nlohmann::json results;
};

Run run(const std::string& name, const std::string& topology, const std::string& yaml, const std::string& extra = "") {
  const std::string dir = scratch_dir("roce_workloads_" + name);
  std::ofstream(dir + "/s.yaml") << "topology: " << topology << "\n" << kRoce << yaml;
  CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out " + extra);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return {r.output, dir + "/out", nlohmann::json::parse(read_file(dir + "/out/results.json"))};
}

std::string repo_topology(const std::string& name) { return std::string(IBFSIM_SOURCE_DIR) + "/topologies/" + name; }

// A leaf-spine of 2 leaves x 2 hosts and 2 spines (h1, h2 on leaf1; h3, h4 on leaf2).
std::string small_leaf_spine(const std::string& name) {
  const std::string path = scratch_dir("roce_workloads_topo_" + name) + "/leaf_spine.yaml";
  std::ofstream(path) << "generate: {kind: leaf_spine, leaves: 2, spines: 2, hosts_per_leaf: 2}\n";
  return path;
}

std::int64_t fs_of(const nlohmann::json& ns) { return std::llround(ns.get<double>() * 1e6); }

}  // namespace

TEST_CASE("RoCE workloads: a zero-load UD SEND through two switches takes the hand-computed 648.72 ns",
          "[scenarios][roce][workload]") {
  // A 64-byte UD SEND is a 134-byte frame (Ethernet 14, IPv4 20, UDP 8, BTH 12, DETH 8, 64, ICRC
  // 4, FCS 4): from its first preamble byte at h1 to its tail at h2 through sw1 and sw2,
  // 2 x (46 + 125 + 3,750) + 8 + 134 + 125 = 8,109 edges = 648.72 ns (the RC SEND of
  // roce_hca_test is 8 bytes shorter: no DETH). At load 0.001 one message every 154 / 0.001
  // edges = 12.32 us: 8 or 9 of them in the 100 us window (as the random phase falls), each alone
  // on the fabric.
  REQUIRE(trip_edges(2, 134) * kEdgeFs == 648'720'000);
  const Run r = run("ud_latency", repo_topology("two_switches_line.yaml"), R"(
workload:
  - {name: ping, sources: [h1], destination: h2, message_size: 64, load: 0.001, arrival: constant}
phases: {warmup: 0us, measure: 100us, drain: 10us}
)");
  const auto& f = r.results["flows"][0];
  CHECK(f["transport"] == "ud_send");
  CHECK(f["sources"] == 1);
  const auto& net = f["network_latency"];
  const int count = net["count"].get<int>();
  CHECK(count >= 8);
  CHECK(count <= 9);
  // Offered and accepted load: each message's 154 edges over the window.
  CHECK(r.results["load"]["offered"].get<double>() == Approx(count * 154 * 0.08 / 100e3).epsilon(1e-12));
  CHECK(r.results["load"]["accepted"] == r.results["load"]["offered"]);
  CHECK(fs_of(net["min_ns"]) == 648'720'000);
  CHECK(fs_of(net["max_ns"]) == 648'720'000);
  // The message latency adds the wait from the message's arrival to the frame's first edge (the
  // generator builds it at once): under one edge.
  const auto& lat = f["latency"];
  CHECK(fs_of(lat["min_ns"]) >= 648'720'000);
  CHECK(fs_of(lat["max_ns"]) < 648'720'000 + kEdgeFs);
  CHECK(r.results["packets"]["created"] == r.results["packets"]["delivered"]);
  CHECK(r.results["packets"]["dropped_total"] == 0);
  CHECK(r.results["ethernet"]["switch_forwarded"] == 2 * r.results["packets"]["created"].get<int>());
}

TEST_CASE("RoCE workloads: uniform UD traffic at load 0.5 on a leaf-spine, load counted on the Ethernet wire",
          "[scenarios][roce][workload]") {
  // Constant arrivals of 64-byte messages at load 0.5: one every 154 / 0.5 = 308 edges = 24.64 ns
  // from each of the 4 hosts. The window is exactly 1,000 gaps, so each host offers exactly 1,000
  // measured messages whatever its random phase: 4,000 in all, offered load 0.5 exactly (load 1.0
  // is back-to-back 154-edge frames: preamble, SFD, the 134-byte frame with its FCS, and the gap).
  const std::string yaml = R"(
workload:
  - {name: uniform, destination: random, message_size: 64, load: 0.5, arrival: constant}
phases: {warmup: 2us, measure: 24.64us, drain: 20us}
)";
  const std::string topo = small_leaf_spine("uniform");
  const Run r = run("uniform", topo, yaml);
  const auto& load = r.results["load"];
  CHECK(load["sources"] == 4);
  CHECK(load["offered"].get<double>() == 0.5);
  const auto& f = r.results["flows"][0];
  CHECK(f["sources"] == 4);
  const std::uint64_t accepted = f["throughput"]["accepted_packets"].get<std::uint64_t>();
  CHECK(f["throughput"]["accepted_payload_bytes"] == accepted * 64);
  // Delivered in the window: the arrivals shifted by their trip (335 ns to a host of the same
  // leaf, 962 ns across the spine, plus queueing where two sources pick one destination); what
  // crosses the window's start and end about balances: within 1 % of 4,000.
  CHECK(accepted >= 3960);
  CHECK(accepted <= 4040);
  // Accepted load: those packets' wire time over the window and the sources, each 154 edges.
  CHECK(load["accepted"].get<double>() == Approx(static_cast<double>(accepted) * 154 * 80e-6 / (24.64 * 4)).epsilon(1e-12));
  // Nothing lost; every frame crossed one switch (same leaf) or three (leaf, spine, leaf).
  const std::uint64_t created = r.results["packets"]["created"].get<std::uint64_t>();
  CHECK(r.results["packets"]["delivered"] == created);
  CHECK(r.results["packets"]["dropped_total"] == 0);
  const std::uint64_t forwarded = r.results["ethernet"]["switch_forwarded"].get<std::uint64_t>();
  CHECK((forwarded - created) % 2 == 0);
  // Two destinations in three are on the other leaf.
  const double across = static_cast<double>(forwarded - created) / 2 / static_cast<double>(created);
  CHECK(across == Approx(2.0 / 3).margin(0.03));
  // The same scenario and seed give the same results.
  const Run again = run("uniform_again", topo, yaml);
  CHECK(again.results["flows"] == r.results["flows"]);
  CHECK(again.results["load"] == r.results["load"]);
  CHECK(again.results["packets"] == r.results["packets"]);
  CHECK(read_file(again.dir + "/ethernet_ports.csv") == read_file(r.dir + "/ethernet_ports.csv"));
}

namespace {

// The collective's steps on the leaf-spine (tests/scenarios/nccl_collectives_test.cpp's
// recurrence, with RoCE's wire): a step of b bytes is an RDMA WRITE with immediate, a frame of
// 82 + b bytes (Ethernet 14, IPv4 20, UDP 8, BTH 12, RETH 16, ImmDt 4, b (here 0 or 4), ICRC 4,
// FCS 4). Posted at P (on an edge), it starts on the wire after the doorbell (250 ns = 3,125
// edges; the host interface is ideal: no DMA), reaches the peer's tail trip_edges later, and the
// peer sees its completion 250 ns (3,125 edges) after that.
std::int64_t step_seen(std::int64_t post, std::int64_t bytes, int switches) {
  return post + (3125 + trip_edges(switches, 82 + bytes) + 3125) * kEdgeFs;
}

// A ring allreduce of seg[j] bytes per segment on ranks h1..h4 in ring order, rank i sending to
// i + 1 over `switches[i]` switches; the mean over ranks of each rank's end - t0 / iterations.
double ring_allreduce_fs(const std::vector<std::int64_t>& seg, const std::vector<int>& switches, std::int64_t t0,
                         int iterations) {
  const std::size_t n = seg.size();
  std::vector<std::int64_t> start(n, t0), seen(n);
  for (int it = 0; it < iterations; ++it) {
    std::vector<std::int64_t> post = start;
    for (std::size_t s = 0; s < 2 * (n - 1); ++s) {
      for (std::size_t i = 0; i < n; ++i) {
        const std::size_t j = s < n - 1 ? (i + n - s) % n : (i + 1 + n - (s - (n - 1))) % n;
        seen[i] = step_seen(post[i], seg[j], switches[i]);
      }
      for (std::size_t i = 0; i < n; ++i) post[(i + 1) % n] = seen[i];
    }
    start = post;
  }
  double sum = 0;
  for (std::size_t i = 0; i < n; ++i) sum += static_cast<double>(start[i] - t0);
  return sum / static_cast<double>(n) / iterations;
}

}  // namespace

TEST_CASE("RoCE workloads: a 4-rank ring allreduce of 8 B on a leaf-spine takes the hand-computed time",
          "[scenarios][roce][collectives]") {
  // h1 -> h2 and h3 -> h4 cross their leaf (1 switch), h2 -> h3 and h4 -> h1 leaf, spine, leaf (3).
  // 8 B = 2 floats: segments of 4, 4, 0, 0 bytes.
  const Run r = run("ring4", small_leaf_spine("ring4"), R"(
collectives:
  - {op: allreduce, algorithm: ring, ranks: [h1, h2, h3, h4], channels: 1, min_bytes: 8, max_bytes: 8,
     warmup_iterations: 0, iterations: 2}
)");
  CHECK(r.results["phases"]["start_ns"] == 0);
  const std::string csv = read_file(r.dir + "/collectives.csv");
  const auto rows = csv_rows(csv);
  REQUIRE(rows.size() == 2);
  CHECK(rows[0][4] == "time_us");
  CHECK(rows[1][0] == "allreduce");
  CHECK(rows[1][1] == "ring");
  CHECK(rows[1][2] == "8");
  const double hand = ring_allreduce_fs({4, 4, 0, 0}, {1, 3, 1, 3}, 0, 2);
  INFO("hand: " << hand << " fs");
  // time_us to the picosecond (6 decimals).
  CHECK(std::stod(rows[1][4]) * 1e9 == Approx(hand).margin(501));
  // busbw = algbw x 2(n-1)/n = 1.5 algbw; nccl-tests' table on the terminal.
  CHECK(std::stod(rows[1][6]) == Approx(1.5 * std::stod(rows[1][5])).margin(0.002));
  CHECK(r.output.find("algbw") != std::string::npos);
  CHECK(r.results["packets"]["dropped_total"] == 0);
}

TEST_CASE("RoCE workloads: a traffic class shift(1) at low load, each message's trip by hand, load on the Ethernet wire",
          "[scenarios][roce][classes]") {
  // ud_send of 64 bytes: 134-byte frames, 154 edges on the wire. h1 -> h2 and h3 -> h4 through
  // their leaf: 3,921 + 142 + 125 = 4,188 edges = 335.04 ns; h2 -> h3 and h4 -> h1 through leaf,
  // spine and leaf: 3 x 3,921 + 267 = 12,030 edges = 962.4 ns. Alone on its path at load 0.01.
  REQUIRE(trip_edges(1, 134) == 4188);
  REQUIRE(trip_edges(3, 134) == 12030);
  const Run r = run("class_shift", small_leaf_spine("class_shift"), R"(
workload: {name: shift, pattern: shift, shift: 1, transport: ud_send, message_size: 64, load: 0.01, arrival: constant}
phases: {warmup: 10us, measure: 200us, drain: 50us}
)");
  const auto& f = r.results["flows"][0];
  CHECK(f["kind"] == "traffic_class");
  CHECK(f["messages"]["measured_undelivered"] == 0);
  CHECK(fs_of(f["network_latency"]["min_ns"]) == 4188 * kEdgeFs);
  CHECK(fs_of(f["network_latency"]["max_ns"]) == 12030 * kEdgeFs);
  // Offered load: each measured message's 154 edges over the window and the 4 sources.
  const double measured = f["messages"]["measured"].get<double>();
  // Constant gaps of 154 edges / 0.01 = 1,232 ns: 200 us holds 162 or 163 arrivals of each source.
  CHECK(measured >= 4 * 162);
  CHECK(measured <= 4 * 163);
  CHECK(f["offered"]["load"].get<double>() == Approx(measured * 154 * 0.08 / (200e3 * 4)).epsilon(1e-12));
  CHECK(f["accepted"]["load"].get<double>() == Approx(f["offered"]["load"].get<double>()).epsilon(0.02));
  CHECK(r.results["packets"]["dropped_total"] == 0);
}

TEST_CASE("RoCE workloads: a tree allreduce of 64 KiB on a leaf-spine completes, every packet delivered",
          "[scenarios][roce][collectives]") {
  const Run r = run("tree", small_leaf_spine("tree"), R"(
collectives:
  - {op: allreduce, algorithm: tree, min_bytes: 64K, max_bytes: 64K, warmup_iterations: 0, iterations: 2}
)");
  const auto rows = csv_rows(read_file(r.dir + "/collectives.csv"));
  REQUIRE(rows.size() == 2);
  CHECK(rows[1][1] == "tree");
  CHECK(std::stod(rows[1][4]) > 0);
  // No link carries data faster than back-to-back WRITE Middle frames: 4,096 bytes in 4,158 + 20
  // edges, 4,096 / (4,178 x 0.08 ns) = 12.255 GB/s; bus bandwidth counts what each link carries.
  CHECK(std::stod(rows[1][6]) < 4096.0 / (4178 * 0.08));
  CHECK(r.results["packets"]["created"] == r.results["packets"]["delivered"]);
  CHECK(r.results["packets"]["dropped_total"] == 0);
}

TEST_CASE("RoCE workloads: a collective traffic class (ring allreduce) on a leaf-spine, each iteration by hand, "
          "fct.csv written",
          "[scenarios][roce][classes][collective]") {
  // 16 KiB on 4 hosts: 2(4 - 1) = 6 steps, each moving one 4 KiB chunk per host to its right
  // neighbour as a UD SEND (built at the wire) of a 4,166-byte frame; a host sends its next step
  // the instant the previous chunk's tail arrives. h1 -> h2 and h3 -> h4 take
  // trip_edges(1, 4166) = 8,220 edges, h2 -> h3 and h4 -> h1 trip_edges(3, 4166) = 16,062: the
  // last chunk any host receives has come over 6 consecutive links of the ring, three of each, so
  // an iteration is 3 x 8,220 + 3 x 16,062 = 72,846 edges = 5,827.68 ns.
  REQUIRE(trip_edges(1, 4166) == 8220);
  REQUIRE(trip_edges(3, 4166) == 16062);
  const Run r = run("class_ring", small_leaf_spine("class_ring"), R"(
workload:
  - {name: ring, pattern: ring_allreduce, message_size: 16384, iterations: 3}
)");
  const auto& c = r.results["flows"][0]["collective"];
  REQUIRE(c["completed"] == 3);
  CHECK(c["steps"] == 6);
  for (int i = 0; i < 3; ++i) CHECK(fs_of(c["per_iteration"][i]["fct_ns"]) == 72846 * kEdgeFs);
  const auto rows = csv_rows(read_file(r.dir + "/fct.csv"));
  REQUIRE(rows.size() == 4);
  CHECK(rows[0][0] == "class");
  CHECK(rows[1][0] == "ring");
  CHECK(r.results["tables"]["fct"]["rows"] == 3);
}
