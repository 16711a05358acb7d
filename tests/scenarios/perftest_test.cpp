// scenarios/perftest_write_bw.yaml and perftest_write_lat.yaml (ib_write_bw and ib_write_lat
// between two hosts through one switch, 4x EDR) against figures derived here by hand from the
// line code, the packet format and the HCA model's documented defaults (docs/verbs.md).
#include <catch2/catch.hpp>

#include <cmath>
#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

nlohmann::json run(const std::string& name, const std::string& scenario, const std::string& extra = "") {
  const std::string dir = scratch_dir(name);
  CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/" + scenario + " -o " + dir + " " + extra);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(read_file(dir + "/results.json"));
}

// 4x EDR: 25.78125 Gbaud per lane, 64b/66b: one 66-bit block (8 bytes) per lane per edge of the
// symbol clock, so an edge is 66 / 25.78125e9 s = 2.56 ns and carries 4 x 8 = 32 bytes.
constexpr std::int64_t kEdgeFs = 2'560'000;
constexpr std::int64_t kBytesPerEdge = 32;
// A packet of B bytes (LRH..VCRC) plus its start and end delimiters takes ceil((B + 2) / 32) edges.
constexpr std::int64_t edges_for(std::int64_t bytes) { return (bytes + 2 + kBytesPerEdge - 1) / kBytesPerEdge; }

// Values in results.json are ns as doubles; compare them as whole femtoseconds (x2: a half-round-
// trip sample can end in half a femtosecond).
std::int64_t twice_fs(double ns) { return std::llround(ns * 2e6); }

}  // namespace

TEST_CASE("perftest_write_bw: 64 KiB RDMA WRITEs reach the 4x EDR wire bound within 1 percent", "[scenarios][perftest]") {
  // The wire bound, per 65536-byte message at PMTU 4096 (16 packets, no pad: 4096 = 4 x 1024):
  //   First:  LRH 8 + BTH 12 + RETH 16 + payload 4096 + ICRC 4 + VCRC 2 = 4138 B -> ceil(4140/32) = 130 edges
  //   Middle x14, Last: LRH 8 + BTH 12 + payload 4096 + ICRC 4 + VCRC 2 = 4122 B -> ceil(4124/32) = 129 edges
  //   data: 130 + 15 x 129 = 2065 edges on h1 -> sw1 (and the same on sw1 -> h2, cut through).
  // What else shares the forward links:
  //   * SKIP ordered sets: 1 edge every 4608 edges (phy.skip_interval_edges), always;
  //   * flow-control packets (6 bytes, 1 edge): h1 advertises its receive buffer to sw1 when an
  //     ACK it received frees it: one per message (the Last packet asks for the ACK), and likewise
  //     sw1 to h2 for h2's ACKs; plus the periodic refresh of each of the 8 data VLs every 65536 edges.
  //   * The ACKs themselves (LRH+BTH+AETH+ICRC+VCRC = 30 B) go h2 -> sw1 -> h1: the reverse links,
  //     irrelevant to the forward bandwidth; so are the flow-control packets for h1's data.
  // Bound without flow control (never exceeded): B_max = 65536 x 8 bit x (1 - 1/4608) / (2065 x 2.56 ns)
  // Expected with it: B_fc = 65536 x 8 bit x (1 - 1/4608 - 8/65536) / (2066 x 2.56 ns)
  const std::int64_t first = edges_for(8 + 12 + 16 + 4096 + 4 + 2);
  const std::int64_t rest = edges_for(8 + 12 + 4096 + 4 + 2);
  REQUIRE(first == 130);
  REQUIRE(rest == 129);
  const std::int64_t data_edges = first + 15 * rest;
  const double skip_share = 1.0 / 4608;
  const double refresh_share = 8.0 / 65536;
  const double bits = 65536.0 * 8;
  const double b_max = bits * (1 - skip_share) / (static_cast<double>(data_edges * kEdgeFs) * 1e-15) / 1e9;
  const double b_fc = bits * (1 - skip_share - refresh_share) / (static_cast<double>((data_edges + 1) * kEdgeFs) * 1e-15) / 1e9;

  const nlohmann::json r = run("perftest_write_bw", "perftest_write_bw.yaml");
  const auto& f = r["flows"][0];
  CHECK(f["messages_completed"] == 5000);
  CHECK(f["completions"]["IBV_WC_SUCCESS"] == 5000);
  CHECK(f["retransmitted_packets"] == 0);
  const double gbps = f["bandwidth_gbps"].get<double>();
  INFO("measured " << gbps << " Gb/s, B_max " << b_max << ", B_fc " << b_fc);
  CHECK(gbps <= b_max);
  CHECK(gbps >= 0.99 * b_max);
  // Tighter: what is left of B_fc is the start (doorbell, first DMA) and the end (last ACK, CQE),
  // about 1 us of 26.5 ms.
  CHECK(gbps >= b_fc * (1 - 1e-4));
  CHECK(gbps <= b_fc);
  // MB/s as perftest prints it: 2^20 bytes.
  CHECK(f["bandwidth_mbytes_per_s"].get<double>() == Approx(gbps * 1e9 / 8 / 1048576).epsilon(1e-12));
}

TEST_CASE("perftest_write_lat: ib_write_lat's t_typical equals the hand computation to the femtosecond", "[scenarios][perftest]") {
  // One way, from a side seeing the peer's data at time t to the peer seeing its answer:
  //   doorbell_to_wire 250 ns (the 2 bytes are inline: no DMA read), then the first 2.56 ns edge;
  //   RDMA WRITE Only: LRH 8 + BTH 12 + RETH 16 + 2 + pad 2 + ICRC 4 + VCRC 2 = 46 B -> 2 edges;
  //   cable 2 m = 10 ns -> 4 edges; the switch has the LRH 1 edge after the start (ceil(9/32)),
  //   i.e. at c+5, and starts at the first edge >= head + 100 ns = c + 5 + 39.0625 -> c+45 (its end,
  //   c+47, is past tail + 100 ns = c + 6 + 39.0625, so cut-through is not held back); the tail
  //   reaches the peer at c + 45 + 4 + 2 = c+51;
  //   then the payload DMA into memory, 2 bytes at 8 GT/s x 128/130 x 16 / 8 x 256/280 B/s
  //   = 138,855 fs (rounded up), and wire_to_completion 250 ns: the peer's poll sees the data.
  // A side sees data at D + 250 ns after an edge, so its answer's first edge is
  // ceil((D + 500 ns) / 2.56 ns) = ceil(195.77) = 196 edges after that edge, and the peer sees the
  // answer at D + 250 ns after edge 196 + 51 = 247: from then on every one-way trip is exactly
  // 247 edges = 632.32 ns, and so is every half round trip: t_typical.
  // The first sample differs: h1 posts message 0 at the start (links up at 18.10432 us = edge
  // 7072), not D + 250 ns after an edge: ceil(250 ns / 2.56 ns) = 98 edges to its first edge,
  // one way = 98 x 2.56 + 51 x 2.56 ns + D + 250 ns; sample 0 = (that + 632.32 ns) / 2.
  // ACKs (1 edge) and flow-control packets (1 edge) leave at delivery, 500 ns before the answer
  // on the same link: they never delay it.
  const double bw = 8e9 * 128.0 / 130.0 * 16 / 8 * 256.0 / 280.0;
  const std::int64_t dma = static_cast<std::int64_t>(std::ceil(2 * 1e15 / bw));
  REQUIRE(dma == 138'855);
  const std::int64_t doorbell = 250'000'000, completion = 250'000'000;
  const std::int64_t wire = 51;
  const std::int64_t turn = (dma + completion + doorbell + kEdgeFs - 1) / kEdgeFs;  // edges to the answer's start
  REQUIRE(turn == 196);
  const std::int64_t steady = (turn + wire) * kEdgeFs;
  REQUIRE(steady == 632'320'000);
  const std::int64_t start = 7072 * kEdgeFs;
  const std::int64_t first_edge = (start + doorbell + kEdgeFs - 1) / kEdgeFs;
  const std::int64_t first_way = (first_edge + wire) * kEdgeFs + dma + completion - start;
  REQUIRE(first_way == 631'578'855);
  const std::int64_t first_sample_x2 = first_way + steady;  // twice the first half round trip

  SECTION("without SKIP ordered sets: every sample after the first is exactly 632.32 ns") {
    const nlohmann::json r = run("perftest_write_lat_noskip", "perftest_write_lat.yaml", "--set phy.skip_interval_edges=0");
    const auto& f = r["flows"][0];
    // The flow starts when the SM's bring-up ends: on an edge of h1's link (its last answer's
    // tail), and first_way above is the same from any edge (7072 stands for any of them).
    const auto start_fs = static_cast<std::int64_t>(std::llround(r["phases"]["start_ns"].get<double>() * 1e6));
    REQUIRE(start_fs % kEdgeFs == 0);
    REQUIRE(start_fs > 18104320000);  // after the links trained
    CHECK(f["completions"]["IBV_WC_SUCCESS"] == 1000);
    const auto& l = f["latency"];
    CHECK(l["count"] == 999);  // perftest: iterations - 1 samples
    CHECK(twice_fs(l["typical_ns"].get<double>()) == 2 * steady);
    CHECK(twice_fs(l["max_ns"].get<double>()) == 2 * steady);
    CHECK(twice_fs(l["min_ns"].get<double>()) == first_sample_x2);
    CHECK(l["mean_ns"].get<double>() * 1e6 ==
          Approx((static_cast<double>(first_sample_x2) / 2 + 998.0 * static_cast<double>(steady)) / 999).epsilon(1e-12));
  }
  SECTION("with SKIPs (the default): t_typical and t_min unchanged; a SKIP due as a packet starts delays a few by an edge") {
    const nlohmann::json r = run("perftest_write_lat", "perftest_write_lat.yaml");
    const auto& l = r["flows"][0]["latency"];
    CHECK(twice_fs(l["typical_ns"].get<double>()) == 2 * steady);
    CHECK(twice_fs(l["min_ns"].get<double>()) == first_sample_x2);
    CHECK(twice_fs(l["p99_ns"].get<double>()) == 2 * steady);  // fewer than 1% of the samples met a SKIP
    // A SKIP costs one edge on one hop: half an edge on a half round trip.
    const std::int64_t extra_x2 = twice_fs(l["max_ns"].get<double>()) - 2 * steady;
    CHECK(extra_x2 >= 0);
    CHECK(extra_x2 % kEdgeFs == 0);
    CHECK(extra_x2 <= 4 * kEdgeFs);  // at most one SKIP per hop of the round trip
  }
}
