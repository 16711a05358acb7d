// `algorithm: sharp` end to end (sharp_allreduce.h, aggregation_node.h) on a 2-level tree: h1, h2
// on leaf1, h3, h4 on leaf2, both leaves under one spine; 4x EDR, 2 m cables, SKIP off. Times are
// computed by hand to the femtosecond, the limits' counts and waits exactly, and the values
// reduced are checked element by element (#wrong).
//
// Figures (tests/scenarios/perftest_test.cpp and nccl_collectives_test.cpp derive them):
//  * an edge is 2.56 ns; a 2 m cable 4 edges; a packet of B bytes takes ceil((B + 2) / 32) edges;
//  * UD SEND with immediate of b bytes: LRH 8 + BTH 12 + DETH 8 + ImmDt 4 + b + ICRC 4 + VCRC 2:
//    b = 8: 46 B, 2 edges; b = 256: 294 B, 10 edges;
//  * a host posts at P: doorbell_to_wire 250 ns, the DMA read d(b), its first edge after that; a
//    result is seen at its tail + d(b) + wire_to_completion 250 ns;
//  * an aggregation node takes a packet at its tail (no crossbar latency: the switch's own port),
//    and its packets leave at the first edge at or after `latency` (200 ns = 78.125 edges) later.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

constexpr std::int64_t kEdgeFs = 2'560'000;

std::int64_t dma_fs(std::int64_t bytes) {
  const double bw = 8e9 * 128.0 / 130.0 * 16 / 8 * 256.0 / 280.0;
  const auto per_kib = static_cast<std::int64_t>(std::llround(1024.0 * 1e15 / bw));
  return (bytes * per_kib + 1023) / 1024;
}

const char* kTopology = R"(defaults:
  link: {speed: EDR, width: 4x, length: 2m}
nodes:
  - {name: h1, type: hca}
  - {name: h2, type: hca}
  - {name: h3, type: hca}
  - {name: h4, type: hca}
  - {name: leaf1, type: switch, ports: 4}
  - {name: leaf2, type: switch, ports: 4}
  - {name: spine, type: switch, ports: 4}
cables:
  - {from: h1/1, to: leaf1/1}
  - {from: h2/1, to: leaf1/2}
  - {from: h3/1, to: leaf2/1}
  - {from: h4/1, to: leaf2/2}
  - {from: leaf1/3, to: spine/1}
  - {from: leaf2/3, to: spine/2}
)";

struct Run {
  std::string output, csv, nodes;
  CommandResult raw;
};

Run run(const std::string& name, const std::string& body, int expect_exit = 0) {
  const std::string dir = scratch_dir("sharp_" + name);
  std::ofstream(dir + "/topo.yaml") << kTopology;
  std::ofstream(dir + "/s.yaml") << "topology: topo.yaml\nphy: {skip_interval_edges: 0}\n" << body;
  CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == expect_exit);
  if (expect_exit != 0) return {r.output, "", "", r};
  return {r.output, read_file(dir + "/out/collectives.csv"), read_file(dir + "/out/aggregation_nodes.csv"), r};
}

std::vector<std::vector<std::string>> csv_rows(const std::string& csv) {
  std::vector<std::vector<std::string>> rows;
  std::istringstream in(csv);
  std::string line;
  while (std::getline(in, line)) {
    std::vector<std::string> cells;
    std::istringstream l(line);
    std::string c;
    while (std::getline(l, c, ',')) cells.push_back(c);
    rows.push_back(cells);
  }
  return rows;
}

}  // namespace

TEST_CASE("sharp: 8 B allreduce on a 2-level tree takes the hand-computed time and the limit makes operations wait",
          "[scenarios][collectives][sharp]") {
  const Run r = run("latency", R"(
outputs: {data_check: true}
collectives:
  - {op: allreduce, algorithm: sharp, min_bytes: 8, max_bytes: 8, warmup_iterations: 0, iterations: 1,
     sharp: {max_operations: 1}}
  - {name: limited, op: allreduce, algorithm: sharp, min_bytes: 512, max_bytes: 512, warmup_iterations: 0,
     iterations: 1, mtu: 256, sharp: {max_operations: 1}}
)");
  const auto rows = csv_rows(r.csv);
  REQUIRE(rows.size() == 3);
  CHECK(rows[0] == std::vector<std::string>{"op", "algorithm", "size_bytes", "count", "time_us", "algbw_GBps", "busbw_GBps"});
  CHECK(rows[1][1] == "sharp");
  // 8 B (one operation), every rank from t0 (an edge): its first edge ceil((250 ns + d(8)) / 2.56 ns)
  // = 98 edges on; tail at the leaf +2+4 = 104; the leaf's result up at the first edge >= +200 ns:
  // 183; tail at the spine 189; the spine's result down: 268; tail at the leaf 274; passed on to
  // the hosts: 353; tail at the host 359. Seen d(8) + 250 ns later.
  REQUIRE(dma_fs(8) == 555'420);
  const double one = 359.0 * kEdgeFs + static_cast<double>(dma_fs(8)) + 250e6;
  CHECK(std::stod(rows[1][4]) * 1e9 == Approx(one).margin(0.5));
  // busbw = algbw x 2(n-1)/n = 1.5 algbw on 4 ranks (3 decimals in the CSV).
  CHECK(std::stod(rows[1][6]) == Approx(1.5 * 8 / (one / 1e6)).margin(0.0005));
  // 512 B at MTU 256: two operations of 256 B (10 edges each), one slot per node. The second
  // collective starts at S = t0 + 359 edges + d(8) + 250 ns, when every rank has its result. Every
  // host's op 0 is first on the wire at ceil((S + 250 ns + d(256)) / 2.56 ns) = t0 + 562 edges
  // = E, op 1 right behind it. At the leaf (Ta = E + 14 edges) op 1's chunks (in at Ta + 10) wait
  // for op 0's result to leave at Ta + 200 ns: 174.4 ns, and leave 200 ns later; the spine has
  // op 0 in at Ta + 93, sends it at Ta + 171.125 edges, and op 1 (in at Ta + 171) waits 0.125
  // edges = 0.32 ns for that slot, then leaves at Ta + 249.25 -> 250; tail at the leaf Ta + 264,
  // passed on at Ta + 343, at the host Ta + 357, seen d(256) + 250 ns later.
  REQUIRE(dma_fs(256) == 17'773'438);
  const double start = 359.0 * kEdgeFs + static_cast<double>(dma_fs(8)) + 250e6;
  const double end = (562.0 + 14 + 357) * kEdgeFs + static_cast<double>(dma_fs(256)) + 250e6;
  CHECK(std::stod(rows[2][4]) * 1e9 == Approx(end - start).margin(0.5));
  // Every element was the exact sum: #wrong 0 on the terminal.
  CHECK(r.output.find("       8             2     float     sum      -1     1.17    0.01    0.01       0\n") !=
        std::string::npos);
  CHECK(r.output.find("operations of 256 B") != std::string::npos);
  // Per node: 1 + 2 operations; the leaves' 6 chunks in (2 hosts x 3), 3 results up, 6 down.
  CHECK(r.nodes ==
        "switch,chunks_in,operations,results_up,results_down,waited,wait_ns,most_active,lost\n"
        "leaf1,6,3,3,6,1,174.400000,1,0\n"
        "leaf2,6,3,3,6,1,174.400000,1,0\n"
        "spine,6,3,0,6,1,0.320000,1,0\n");
}

TEST_CASE("sharp: with enough slots nothing waits, and int32 and float16 sums are exact", "[scenarios][collectives][sharp]") {
  const Run r = run("types", R"(
outputs: {data_check: true}
collectives:
  - {op: allreduce, algorithm: sharp, min_bytes: 4K, max_bytes: 16K, factor: 4, warmup_iterations: 1, iterations: 2,
     datatype: int32}
  - {name: halves, op: allreduce, algorithm: sharp, min_bytes: 4K, max_bytes: 16K, factor: 4, warmup_iterations: 1,
     iterations: 2, datatype: half}
)");
  // 16 KiB: 4 operations per iteration at the default 4096-byte MTU, 16 slots: no waits.
  const auto nodes = csv_rows(r.nodes);
  REQUIRE(nodes.size() == 4);
  // Per leaf: 2 hosts x (4 KiB: 1 + 16 KiB: 4 operations) x 3 iterations x 2 collectives.
  CHECK(nodes[1][1] == "60");
  CHECK(nodes[1][5] == "0");
  std::istringstream out(r.output);
  std::string line;
  int checked = 0;
  while (std::getline(out, line))
    if (line.find(" sum ") != std::string::npos) {
      CHECK(line.substr(line.size() - 2) == " 0");  // #wrong
      ++checked;
    }
  CHECK(checked == 4);
}

TEST_CASE("sharp: bad keys are located errors", "[scenarios][collectives][sharp]") {
  Run r = run("bad_type", "collectives:\n  - {op: allreduce, algorithm: sharp, datatype: double}\n", 2);
  CHECK(r.output.find("s.yaml:4:") != std::string::npos);
  CHECK(r.output.find("what SHARP reduces") != std::string::npos);
  r = run("bad_op", "collectives:\n  - {op: allgather, algorithm: sharp}\n", 2);
  CHECK(r.output.find("SHARP reduces allreduce only") != std::string::npos);
  r = run("bad_key", "collectives:\n  - {op: allreduce, algorithm: ring, sharp: {latency: 1us}}\n", 2);
  CHECK(r.output.find("no sharp settings") != std::string::npos);
  // A ring's knobs mean nothing to SHARP: refused rather than ignored.
  for (const char* key : {"channels: 2", "chunk_size: 1M", "reduce_bandwidth: 10"}) {
    r = run("ring_key", std::string("collectives:\n  - {op: allreduce, algorithm: sharp, ") + key + "}\n", 2);
    INFO(key << "\n" << r.output);
    CHECK(r.output.find("s.yaml:4:") != std::string::npos);
    CHECK(r.output.find("with algorithm: sharp (operations are min(mtu, sharp.buffer) bytes") != std::string::npos);
  }
}
