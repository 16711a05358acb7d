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
//    and its packets leave at the first edge at or after `latency` (200 ns = 78.125 edges) later;
//  * a GMP (the aggregation manager's TreeConfig MADs and their GetResps) is 290 B: 10 edges; a
//    switch passes a packet on 41 edges after its head came in (its 100 ns; nccl_collectives_test's
//    51 edges through one switch for a 2-edge packet = 2 + 4 + 41 + 4), so each switch crossed
//    adds 45 edges with the cable after it;
//  * the AM runs on h1 (the subnet manager's host) and sends a job's MADs back to back when the
//    collective starts, in tree order (spine, leaf1, leaf2); a node answers at the first edge at or
//    after its tail + mad_latency (1 us = 390.625 edges); the first size starts when the last
//    answer's tail is in at h1.
#include <catch2/catch.hpp>

#include <cmath>
#include <fstream>
#include <sstream>
#include <vector>

#include <filesystem>
#include <map>
#include <set>

#include <nlohmann/json.hpp>

#include "tests/support/csv_rows.h"
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
  std::string dir;
};

Run run(const std::string& name, const std::string& body, int expect_exit = 0) {
  const std::string dir = scratch_dir("sharp_" + name);
  std::ofstream(dir + "/topo.yaml") << kTopology;
  std::ofstream(dir + "/s.yaml") << "topology: topo.yaml\nphy: {skip_interval_edges: 0}\n" << body;
  CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == expect_exit);
  if (expect_exit != 0) return {r.output, "", "", r, dir};
  return {r.output, read_file(dir + "/out/collectives.csv"), read_file(dir + "/out/aggregation_nodes.csv"), r, dir};
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
  // collective asks the AM for its tree at S = t0 + 359 edges + d(8) + 250 ns, when every rank has
  // its result (S is 0.32458 ns short of an edge: 250.55542 ns = 97.873 edges); its MADs leave at
  // the next edge, so its set-up takes 619 edges + 0.32458 ns (test below) and it starts at
  // S2 = t0 + (359 + 98 + 619) edges, on an edge. Every host's op 0 is first on the wire at
  // ceil((250 ns + d(256)) / 2.56 ns) = 105 edges after S2 = E, op 1 right behind it. At the leaf
  // (Ta = E + 14 edges) op 1's chunks (in at Ta + 10) wait for op 0's result to leave at
  // Ta + 200 ns: 174.4 ns, and leave 200 ns later; the spine has op 0 in at Ta + 93, sends it at
  // Ta + 171.125 edges, and op 1 (in at Ta + 171) waits 0.125 edges = 0.32 ns for that slot, then
  // leaves at Ta + 249.25 -> 250; tail at the leaf Ta + 264, passed on at Ta + 343, at the host
  // Ta + 357, seen d(256) + 250 ns later: (105 + 14 + 357) edges + d(256) + 250 ns after S2.
  REQUIRE(dma_fs(256) == 17'773'438);
  CHECK(std::stod(rows[2][4]) * 1e9 ==
        Approx((105.0 + 14 + 357) * kEdgeFs + static_cast<double>(dma_fs(256)) + 250e6).margin(500));
  // Every element was the exact sum: #wrong 0 on the terminal.
  CHECK(r.output.find("       8             2     float     sum      -1     1.17    0.01    0.01       0\n") !=
        std::string::npos);
  CHECK(r.output.find("operations of 256 B") != std::string::npos);
  // Per node: 1 + 2 operations; the leaves' 6 chunks in (2 hosts x 3), 3 results up, 6 down.
  CHECK(r.nodes ==
        "switch,chunks_in,operations,results_up,results_down,waited,wait_ns,most_active,lost,mads_answered,trees,"
        "trees_refused\n"
        "leaf1,6,3,3,6,1,174.400000,1,0,2,2,0\n"
        "leaf2,6,3,3,6,1,174.400000,1,0,2,2,0\n"
        "spine,6,3,0,6,1,0.320000,1,0,2,2,0\n");
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

TEST_CASE("sharp: the aggregation manager sets the tree up in band, in the hand-computed time, and tshark decodes its MADs",
          "[scenarios][collectives][sharp][capture]") {
  const Run r = run("setup", R"(
outputs: {pcap: true}
collectives:
  - {op: allreduce, algorithm: sharp, min_bytes: 8, max_bytes: 8, warmup_iterations: 0, iterations: 1}
)");
  // From t0 (fabric up, an edge), first edges: spine's MAD t0, leaf1's t0 + 10, leaf2's t0 + 20.
  //  * leaf1: tail t0 + 24; answer at ceil(24 + 390.625) = 415; its tail at h1 415 + 14 = 429;
  //  * spine (through leaf1): tail t0 + 59; answer at 450; at h1 450 + 10 + 4 + 45 = 509;
  //  * leaf2 (through leaf1 and spine): tail t0 + 124; answer at 515; at h1 515 + 14 + 90 = 619.
  // The last is leaf2's: 619 edges = 1584.64 ns; then the 8 B allreduce takes what the first test says.
  const nlohmann::json res = nlohmann::json::parse(read_file(r.dir + "/out/results.json"));
  CHECK(res["sharp"]["jobs"] == 1);
  CHECK(res["sharp"]["jobs_refused"] == 0);
  CHECK(res["sharp"]["mads_sent"] == 3);
  CHECK(res["sharp"]["mads_answered"] == 3);
  CHECK(res["sharp"]["setup_ns"].get<double>() == Approx(619 * 2.56).margin(1e-6));
  CHECK(r.output.find("# allreduce_sharp: tree 0 of 3 switches set up by the aggregation manager on h1 in 1.584640 us, "
                      "3 MADs\n") != std::string::npos);
  const auto nodes = csv_rows(r.nodes);
  REQUIRE(nodes.size() == 4);
  for (std::size_t i = 1; i < 4; ++i) {
    CHECK(nodes[i][9] == "1");   // mads_answered
    CHECK(nodes[i][10] == "1");  // trees
  }
  const double one = 359.0 * kEdgeFs + static_cast<double>(dma_fs(8)) + 250e6;
  CHECK(std::stod(csv_rows(r.csv)[1][4]) * 1e9 == Approx(one).margin(500));
  if (!std::filesystem::exists("/usr/bin/tshark")) {
    WARN("tshark is not installed: the capture is not decoded");
    return;
  }
  // Each MAD is captured on every link it crosses: distinct (method, transaction) pairs of class 0x0a.
  const CommandResult ts = run_command("(/usr/bin/tshark -n -r " + r.dir +
                                       "/out/trace.pcap -T fields -E separator=';' -e _ws.malformed"
                                       " -e infiniband.mad.mgmtclass -e infiniband.mad.method"
                                       " -e infiniband.mad.attributeid -e infiniband.mad.transactionid 2>/dev/null)");
  REQUIRE(ts.exit_code == 0);
  std::istringstream in(ts.output);
  std::string line;
  std::size_t malformed = 0;
  std::set<std::string> sets, answers;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::string cell;
    std::istringstream ls(line);
    while (std::getline(ls, cell, ';')) f.push_back(cell);
    f.resize(5);
    if (!f[0].empty()) ++malformed;
    if (f[1] != "0x0a") continue;
    CHECK(f[3] == "0x0010");
    (f[2] == "0x02" ? sets : answers).insert(f[4]);
  }
  CHECK(malformed == 0);
  CHECK(sets.size() == 3);
  CHECK(answers == sets);
}

TEST_CASE("sharp: a node at max_trees refuses the next job, which does not run and says why", "[scenarios][collectives][sharp]") {
  const Run r = run("refused", R"(
collectives:
  - {op: allreduce, algorithm: sharp, min_bytes: 8, max_bytes: 8, warmup_iterations: 0, iterations: 1,
     sharp: {max_trees: 1}}
  - {name: second, op: allreduce, algorithm: sharp, min_bytes: 8, max_bytes: 8, warmup_iterations: 0,
     iterations: 1, sharp: {max_trees: 1}}
)");
  // The first job holds a tree at every switch (trees are kept): the second's three MADs are all refused.
  CHECK(r.output.find("# second: REFUSED: spine holds sharp.max_trees (1) trees already; the aggregation manager on h1 "
                      "could not set up the job's tree and the collective did not run\n") != std::string::npos);
  const auto rows = csv_rows(r.csv);
  REQUIRE(rows.size() == 2);  // the first collective's one size only
  CHECK(r.nodes.find("leaf1,2,1,1,2,0,0.000000,1,0,2,1,1\n") != std::string::npos);
  const nlohmann::json res = nlohmann::json::parse(read_file(r.dir + "/out/results.json"));
  CHECK(res["sharp"]["jobs"] == 2);
  CHECK(res["sharp"]["jobs_refused"] == 1);
  CHECK(res["sharp"]["mads_sent"] == 6);
  CHECK(res["sharp"]["mads_answered"] == 6);
  const Run bad = run("bad_trees", "collectives:\n  - {op: allreduce, algorithm: sharp, sharp: {max_trees: 0}}\n", 2);
  CHECK(bad.output.find("s.yaml:4:") != std::string::npos);
  CHECK(bad.output.find("s.yaml:4:58: expected an integer in 1..255, got '0'") != std::string::npos);
}

TEST_CASE("sharp: redop min and max over int32 and half are exact, and the table shows the redop",
          "[scenarios][collectives][sharp]") {
  const Run r = run("redop", R"(
outputs: {data_check: true}
collectives:
  - {name: min_int, op: allreduce, algorithm: sharp, redop: min, min_bytes: 4K, max_bytes: 16K, factor: 4,
     warmup_iterations: 0, iterations: 1, datatype: int32}
  - {name: max_int, op: allreduce, algorithm: sharp, redop: max, min_bytes: 4K, max_bytes: 16K, factor: 4,
     warmup_iterations: 0, iterations: 1, datatype: int32}
  - {name: min_half, op: allreduce, algorithm: sharp, redop: min, min_bytes: 4K, max_bytes: 4K,
     warmup_iterations: 0, iterations: 1, datatype: half}
  - {name: max_half, op: allreduce, algorithm: sharp, redop: max, min_bytes: 4K, max_bytes: 4K,
     warmup_iterations: 0, iterations: 1, datatype: half}
)");
  // nccl-tests' row: size, count, type, redop, root, time, algbw, busbw, #wrong (0: every element exact).
  std::istringstream out(r.output);
  std::string line;
  std::map<std::string, int> rows;
  while (std::getline(out, line)) {
    std::istringstream l(line);
    std::vector<std::string> f;
    std::string w;
    while (l >> w) f.push_back(w);
    if (f.size() != 9 || (f[3] != "min" && f[3] != "max")) continue;
    CHECK(f[8] == "0");
    ++rows[f[2] + " " + f[3]];
  }
  CHECK(rows["int32 min"] == 2);
  CHECK(rows["int32 max"] == 2);
  CHECK(rows["half min"] == 1);
  CHECK(rows["half max"] == 1);
  // redop only where the collective reduces, and only sum, min or max.
  Run bad = run("bad_redop", "collectives:\n  - {op: allreduce, algorithm: sharp, redop: prod}\n", 2);
  CHECK(bad.output.find("s.yaml:4:") != std::string::npos);
  CHECK(bad.output.find("expected sum, min or max, got 'prod'") != std::string::npos);
  bad = run("bad_redop_op", "collectives:\n  - {op: allgather, redop: max}\n", 2);
  CHECK(bad.output.find("only allreduce and reducescatter reduce") != std::string::npos);
}

TEST_CASE("sharp: a link of the tree failing mid-allreduce fails the job after sharp.timeout, naming the operation",
          "[scenarios][collectives][sharp]") {
  // leaf2's uplink goes down 20 us into a 1 MiB allreduce (256 operations): leaf2's partial results
  // are lost (counted), the spine never completes those operations, and h3 and h4 get no more
  // results. 1 ms (sharp.timeout) after its last result rank 2 (h3, the first rank to time out)
  // fails the job, naming its first missing operation; the next collective still runs.
  const Run r = run("lost", R"(
subnet_manager: static
collectives:
  - {op: allreduce, algorithm: sharp, min_bytes: 1M, max_bytes: 1M, warmup_iterations: 0, iterations: 1}
  - {name: after, op: allreduce, algorithm: ring, min_bytes: 8, max_bytes: 8, warmup_iterations: 0, iterations: 1,
     ranks: [h1, h2]}
faults:
  - {at: 20us, link: spine/2, state: down}
)");
  CHECK(r.output.find("FAILED: operation 38 of tree 0 (size 1048576 B, iteration 0, chunk 38): rank 2 (h3) had no result "
                      "for sharp.timeout (1000 us), a packet of the tree was lost; the collective ended there\n") !=
        std::string::npos);
  const auto rows = csv_rows(r.csv);
  REQUIRE(rows.size() == 2);  // the ring's one row; the failed SHARP collective has none
  CHECK(rows[1][1] == "ring");
  const nlohmann::json res = nlohmann::json::parse(read_file(r.dir + "/out/results.json"));
  CHECK(res["sharp"]["jobs_failed"] == 1);
  // leaf2 could not send its partial results up: counted as lost.
  const auto nodes = csv_rows(r.nodes);
  REQUIRE(nodes.size() == 4);
  CHECK(nodes[2][0] == "leaf2");
  CHECK(nodes[2][8] == "216");
  // The spine: the operations it never completed hold its 16 slots, 200 chunks wait behind them.
  CHECK(nodes[3][5] == "200");
  CHECK(nodes[3][7] == "16");
}

TEST_CASE("sharp: a TreeConfig MAD answered after mad_timeout is resent, and the node takes the copy as the same tree",
          "[scenarios][collectives][sharp]") {
  // The answers reach h1 at t0 + 1098.24 ns (leaf1), 1303.04 ns (spine) and 1584.64 ns (leaf2: the
  // set-up test above). With mad_timeout 1.2 us the spine's and leaf2's MADs are sent again at
  // t0 + 1.2 us; their first answers settle them, the copies' answers come later and are ignored.
  // Each node answers its copy without taking a second tree (max_trees 1 would refuse one).
  const Run r = run("mad_resent", R"(
collectives:
  - {op: allreduce, algorithm: sharp, min_bytes: 8, max_bytes: 8, warmup_iterations: 0, iterations: 1,
     sharp: {mad_timeout: 1200ns, max_trees: 1}}
)");
  const nlohmann::json res = nlohmann::json::parse(read_file(r.dir + "/out/results.json"));
  CHECK(res["sharp"]["jobs"] == 1);
  CHECK(res["sharp"]["jobs_refused"] == 0);
  CHECK(res["sharp"]["jobs_unanswered"] == 0);
  CHECK(res["sharp"]["mads_sent"] == 5);
  CHECK(res["sharp"]["mads_resent"] == 2);
  CHECK(res["sharp"]["mads_answered"] == 3);
  CHECK(res["sharp"]["mads_unanswered"] == 0);
  CHECK(res["sharp"]["setup_ns"].get<double>() == Approx(619 * 2.56).margin(1e-6));
  CHECK(r.output.find("# allreduce_sharp: tree 0 of 3 switches set up by the aggregation manager on h1 in 1.584640 us, "
                      "3 MADs\n") != std::string::npos);
  const auto nodes = csv_rows(r.nodes);
  REQUIRE(nodes.size() == 4);
  std::map<std::string, std::vector<std::string>> by_switch;
  for (std::size_t i = 1; i < nodes.size(); ++i) by_switch[nodes[i][0]] = nodes[i];
  REQUIRE(nodes[0][9] == "mads_answered");
  CHECK(by_switch["leaf1"][9] == "1");
  CHECK(by_switch["spine"][9] == "2");
  CHECK(by_switch["leaf2"][9] == "2");
  for (const auto& [name, row] : by_switch) {
    INFO(name);
    CHECK(row[10] == "1");  // trees
    CHECK(row[11] == "0");  // trees_refused
  }
  const auto rows = csv_rows(r.csv);
  REQUIRE(rows.size() == 2);  // the collective ran its one size
}

TEST_CASE("sharp: a TreeConfig MAD never answered within its tries fails the job at set-up, naming the switch",
          "[scenarios][collectives][sharp]") {
  // Each node takes 20 us per MAD; the AM waits 1 us, sends each MAD twice more, and gives up at
  // t0 + 3 us exactly (all three went out at t0). The root, first in tree order, is named.
  const Run r = run("mad_unanswered", R"(
collectives:
  - {op: allreduce, algorithm: sharp, min_bytes: 8, max_bytes: 8, warmup_iterations: 0, iterations: 1,
     sharp: {mad_latency: 20us, mad_timeout: 1us, mad_retries: 2}}
)");
  CHECK(r.output.find("# allreduce_sharp: FAILED at set-up: spine never answered a TreeConfig MAD of the aggregation "
                      "manager on h1 after 3 tries (sharp.mad_timeout 1 us each, 3 us in all); the collective did not "
                      "run\n") != std::string::npos);
  const nlohmann::json res = nlohmann::json::parse(read_file(r.dir + "/out/results.json"));
  CHECK(res["sharp"]["jobs"] == 1);
  CHECK(res["sharp"]["jobs_unanswered"] == 1);
  CHECK(res["sharp"]["jobs_refused"] == 0);
  CHECK(res["sharp"]["mads_sent"] == 9);
  CHECK(res["sharp"]["mads_resent"] == 6);
  CHECK(res["sharp"]["mads_unanswered"] == 3);
  CHECK(res["sharp"]["mads_answered"] == 0);
  CHECK(csv_rows(r.csv).size() == 1);  // the header only
  const Run bad = run("bad_mad_retries", "collectives:\n  - {op: allreduce, algorithm: sharp, sharp: {mad_retries: 101}}\n", 2);
  CHECK(bad.output.find("s.yaml:4:") != std::string::npos);
  CHECK(bad.output.find("expected an integer in 0..100, got '101'") != std::string::npos);
}
