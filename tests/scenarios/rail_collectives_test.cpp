// Collectives on rail-optimised servers (nccl_collective.h, intra_node_spec.h): transfers between
// two HCAs of one server over the intra-node fabric, exactly latency + bytes / bandwidth; a ring
// allreduce over two servers of two rails against a hand computation; `intra_node:` errors.
//
// The InfiniBand steps are those of tests/scenarios/nccl_collectives_test.cpp (4x EDR: an edge is
// 2.56 ns; an RDMA WRITE with immediate of <= 12 bytes reaches the peer through one switch 51
// edges after its first edge; doorbell_to_wire and wire_to_completion 250 ns; the DMA of b bytes
// d(b)). On `generate: {kind: rail_fat_tree, nodes: 2, rails: 2, nodes_per_leaf: 2, spines: 1}`
// n1r1 and n2r1 share the leaf r1leaf1 (one switch, 2 m cables, 100 ns): the same path.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/support/csv_rows.h"
#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

constexpr std::int64_t kEdgeFs = 2'560'000;
constexpr std::int64_t kWireEdges = 51;
constexpr std::int64_t kDoorbellFs = 250'000'000, kCompletionFs = 250'000'000;
constexpr std::int64_t kLatencyFs = 1'000'000'000;  // intra_node.latency 1us

std::int64_t dma_fs(std::int64_t bytes) {
  if (bytes == 0) return 0;
  const double bw = 8e9 * 128.0 / 130.0 * 16 / 8 * 256.0 / 280.0;
  const auto per_kib = static_cast<std::int64_t>(std::llround(1024.0 * 1e15 / bw));
  return (bytes * per_kib + 1023) / 1024;
}

// An RC WRITE with immediate of `bytes` posted at `post`: when its receiver sees it.
std::int64_t ib_seen(std::int64_t post, std::int64_t bytes) {
  const std::int64_t ready = post + kDoorbellFs + dma_fs(bytes);
  const std::int64_t edge = (ready + kEdgeFs - 1) / kEdgeFs;
  return (edge + kWireEdges) * kEdgeFs + dma_fs(bytes) + kCompletionFs;
}

// bytes at 150 GB/s, rounded up to the femtosecond.
std::int64_t nvlink_fs(std::int64_t bytes) {
  const __int128 fs = static_cast<__int128>(bytes) * 1'000'000'000'000'000 + 149'999'999'999;
  return static_cast<std::int64_t>(fs / 150'000'000'000);
}

struct Run {
  std::string output;
  std::string csv;
  nlohmann::json results;
};

Run run(const std::string& name, const std::string& yaml) {
  const std::string dir = scratch_dir("rail_" + name);
  std::ofstream(dir + "/s.yaml") << yaml;
  CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return {r.output, read_file(dir + "/out/collectives.csv"), nlohmann::json::parse(read_file(dir + "/out/results.json"))};
}

std::int64_t start_fs(const nlohmann::json& r) {
  return static_cast<std::int64_t>(std::llround(r["phases"]["start_ns"].get<double>() * 1e6));
}

const std::string kRail2x2 = R"(
intra_node: {bandwidth: 150GB/s, latency: 1us}
phy: {skip_interval_edges: 0}
)";

std::string write_topology(const std::string& name) {
  const std::string dir = scratch_dir("rail_topo_" + name);
  std::ofstream(dir + "/t.yaml") << "generate: {kind: rail_fat_tree, nodes: 2, rails: 2, nodes_per_leaf: 2, spines: 1}\n";
  return "topology: " + dir + "/t.yaml\n";
}

}  // namespace

TEST_CASE("rail collectives: a step inside a server takes latency + bytes / bandwidth exactly", "[scenarios][collectives]") {
  // Two ranks of server n1: a ring allreduce of 256 KiB on one channel is one loop of 2 segments
  // of 128 KiB (chunk 128K), in 2 steps, both ranks at once, each on its own links out and in.
  // A step: 1 us + 131072 B / 150 GB/s = 1 us + 873,813,334 fs (rounded up); the second starts
  // as the first has arrived; the iteration ends when the second has: 2 steps.
  const Run r = run("intra", write_topology("intra") + kRail2x2 + R"(
collectives:
  - {op: allreduce, ranks: [n1r1, n1r2], channels: 1, min_bytes: 256K, max_bytes: 256K, warmup_iterations: 0,
     iterations: 2}
)");
  const auto rows = csv_rows(r.csv);
  REQUIRE(rows.size() == 2);
  REQUIRE(nvlink_fs(131072) == 873'813'334);
  const double step = kLatencyFs + nvlink_fs(131072);
  CHECK(std::stod(rows[1][4]) * 1e9 == Approx(2 * step).margin(501));
  CHECK(rows[1][2] == "262144");
}

TEST_CASE("rail collectives: ring allreduce over 2 servers x 2 rails, crossings on rail 1 via NVLink",
          "[scenarios][collectives]") {
  // Ranks n1r1, n1r2, n2r1, n2r2 = 0, 1, 2, 3; channel 0's ring 0 -> 1 -> 2 -> 3 -> 0 (server by
  // server, each from its rail-1 HCA). 0 -> 1 and 2 -> 3 are inside a server: latency +
  // 4 B / 150 GB/s. 1 -> 2 and 3 -> 0 cross servers from a rail-2 rank to a rail-1 rank: over NVLink
  // to the sender's server's rail-1 rank (0 for 1, 2 for 3), whose HCA sends the RC WRITE to
  // the receiver on rail 1's leaf. 16 B = 4 floats on 4 ranks: every step carries 4 B; 6 steps.
  const Run r = run("ring", write_topology("ring") + kRail2x2 + R"(
collectives:
  - {op: allreduce, channels: 1, min_bytes: 16, max_bytes: 16, warmup_iterations: 0, iterations: 1}
)");
  const std::int64_t t0 = start_fs(r.results);
  const std::int64_t leg = kLatencyFs + nvlink_fs(4);
  REQUIRE(nvlink_fs(4) == 26'667);
  // Step s of position i is posted when step s - 1 of position i - 1 is seen.
  std::vector<std::int64_t> post(4, t0), seen(4);
  for (int s = 0; s < 6; ++s) {
    for (int i = 0; i < 4; ++i) seen[i] = i % 2 == 0 ? post[i] + leg : ib_seen(post[i] + leg, 4);
    for (int i = 0; i < 4; ++i) post[(i + 1) % 4] = seen[i];
  }
  // Each rank's iteration ends as its last step comes in (it posted its own before).
  double sum = 0;
  for (int i = 0; i < 4; ++i) sum += static_cast<double>(post[i] - t0);
  const auto rows = csv_rows(r.csv);
  REQUIRE(rows.size() == 2);
  INFO("hand: " << sum / 4 << " fs");
  CHECK(std::stod(rows[1][4]) * 1e9 == Approx(sum / 4).margin(501));
  CHECK(rows[1][0] == "allreduce");
  CHECK(rows[1][2] == "16");
}

TEST_CASE("rail collectives: intra_node errors are located (exit 2)", "[scenarios][collectives]") {
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"topology: " + std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml\nintra_node: {latency: 1us}\n",
       ":2:13: expected a topology that groups its HCAs into servers"},
      {write_topology("bad1") + "intra_node: {bandwidth: fast}\n", ":2:25: expected a bandwidth in 0.001..100000 GB/s"},
      {write_topology("bad2") + "intra_node: {speed: 1}\n", ":2:14: "},
  };
  for (const auto& [yaml, expected] : cases) {
    INFO(yaml);
    const std::string dir = scratch_dir("rail_bad");
    std::ofstream(dir + "/s.yaml") << yaml << "collectives:\n  - {op: allreduce}\n";
    const CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(dir + "/s.yaml" + expected) != std::string::npos);
  }
}
