// The study scenarios of scenarios/ run end to end, each checked against what its comment says it
// shows, with bounds computed by hand from the fabric parameters. The long label holds the full
// fat-tree load sweep as shipped.
//
// Fabric timing (4x EDR, 2 m cables, switch latency 100 ns; zero_load_latency_test.cpp checks each
// rule on one hop): an edge is 2.56 ns and carries 32 bytes; a 2 KiB UD packet (2082 bytes + 2
// delimiters) takes 66 edges; a 2 m cable 10 ns = 4 edges; a switch has the LRH 1 edge after the
// head and starts forwarding at the first edge >= head + 100 ns, i.e. 40 edges later. So from the
// first symbol on the wire: every switch adds 4 + 1 + 40 = 45 edges, the last cable and the
// packet's own length 4 + 66 = 70 edges:
//   1 switch (same leaf):     45 + 70 = 115 edges = 294.4 ns
//   3 switches (other leaf): 135 + 70 = 205 edges = 524.8 ns
// On fat_tree_128 (16 leaves of 8 hosts), a uniform destination is on the same leaf with
// probability 7/127, so the mean zero-load network latency is (7 x 294.4 + 120 x 524.8) / 127
// = 512.10 ns; a message (ud_send: posted at the wire, no HCA pipeline) also waits for the next
// edge after it arrives, 1.28 ns on average: 513.38 ns.
#include <catch2/catch.hpp>

#include <filesystem>
#include <map>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

constexpr double kEdgeNs = 2.56;

std::string scenario(const std::string& name) { return std::string(IBFSIM_SOURCE_DIR) + "/scenarios/" + name + ".yaml"; }

// curve.csv as one map per row, by column name.
std::vector<std::map<std::string, std::string>> read_curve(const std::string& path) {
  std::vector<std::map<std::string, std::string>> rows;
  std::istringstream in(read_file(path));
  std::string line;
  std::vector<std::string> head;
  auto split = [](const std::string& s) {
    std::vector<std::string> out;
    std::string cur;
    for (char c : s) {
      if (c == ',') out.push_back(cur), cur.clear();
      else cur += c;
    }
    out.push_back(cur);
    return out;
  };
  std::getline(in, line);
  head = split(line);
  while (std::getline(in, line)) {
    const auto v = split(line);
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < head.size() && i < v.size(); ++i) row[head[i]] = v[i];
    rows.push_back(row);
  }
  return rows;
}

double num(const std::map<std::string, std::string>& row, const std::string& col) { return std::stod(row.at(col)); }

// Checks the zero-load end and the flattening of a fat-tree uniform curve in `dir`.
void check_fat_tree_curve(const std::string& dir, double flat_from) {
  const auto rows = read_curve(dir + "/curve.csv");
  REQUIRE(rows.size() >= 4);
  for (const auto& r : rows) REQUIRE(r.at("status") == "ok");
  // Zero-load end: the lowest load's point, against the hand-computed figures above.
  const auto first = nlohmann::json::parse(read_file(dir + "/points/p0000/results.json"));
  const auto& net = first["packet_network_latency"];
  CHECK(net["min_ns"].get<double>() == Approx(115 * kEdgeNs).epsilon(1e-12));  // a same-leaf packet
  // Most destinations are on another leaf: the median is the 3-switch path (within the histogram's 1/512).
  CHECK(std::abs(net["p50_ns"].get<double>() - 205 * kEdgeNs) <= 205 * kEdgeNs / 512);
  // The mean message latency at the lowest load matches 513.38 ns to within 2% (the share of
  // same-leaf destinations varies with a few hundred samples, and a little queueing remains).
  const double zero_load = (7 * 115 + 120 * 205) * kEdgeNs / 127 + kEdgeNs / 2;
  CHECK(num(rows.front(), "msg_mean_ns") == Approx(zero_load).epsilon(0.02));
  CHECK(num(rows.front(), "accepted_load") == Approx(num(rows.front(), "offered_load")).epsilon(0.05));
  // Past saturation accepted load stops following the offered load and stays flat.
  const auto sat = nlohmann::json::parse(read_file(dir + "/saturation.json"));
  REQUIRE(sat["series"][0]["saturated"] == true);
  const double sat_at = sat["series"][0]["saturation_point"]["offered_load"];
  CHECK(sat_at <= flat_from + 0.01);
  double lo = 1, hi = 0;
  for (const auto& r : rows) {
    if (num(r, "offered_load") < flat_from) continue;
    lo = std::min(lo, num(r, "accepted_load"));
    hi = std::max(hi, num(r, "accepted_load"));
    CHECK(num(r, "accepted_load") < 0.95 * num(r, "offered_load"));
    CHECK(r.at("saturated") == "1");
  }
  CHECK(hi - lo < 0.03);  // flat
  CHECK(hi == Approx(sat["series"][0]["saturation_throughput"].get<double>()).margin(0.03));
}

}  // namespace

TEST_CASE("fat-tree uniform sweep, short: the zero-load end is the hand-computed latency and accepted load flattens past saturation",
          "[scenarios][study]") {
  const std::string dir = std::filesystem::absolute(scratch_dir("study_fat_tree_short")).string();
  const CommandResult r = run_ibfsim("sweep " + scenario("fat_tree_uniform_sweep") +
                                     " --set workload.load=0.01,0.7,0.85,1.0 --set phases.warmup=5us"
                                     " --set phases.measure=40us --set phases.drain=50us -j 2 -o " + dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  check_fat_tree_curve(dir, 0.7);
}

TEST_CASE("fat-tree uniform sweep as shipped, 0.1 to 0.95: zero-load end, saturation and a flat top", "[long][study]") {
  const std::string dir = std::filesystem::absolute(scratch_dir("study_fat_tree_full")).string();
  const CommandResult r = run_ibfsim("sweep " + scenario("fat_tree_uniform_sweep") +
                                     " --set workload.load=0.01,0.1:0.95:0.05 -j 2 -o " + dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  check_fat_tree_curve(dir, 0.7);
  for (const char* f : {"latency.png", "latency.svg", "throughput.png", "throughput.svg"})
    CHECK(std::filesystem::file_size(dir + "/" + f) > 1000);
}

TEST_CASE("incast scenario: 4 sources into one link fit at 0.2 each and saturate at 0.3 each", "[scenarios][study]") {
  // Offered to h1: 4 x 0.2 = 0.8 of its link (fits), then 4 x 0.3 = 1.2 (cannot): h1's link then
  // carries at most one link's worth, 1/4 = 0.25 per source.
  const std::string dir = scratch_dir("study_incast");
  CommandResult r = run_ibfsim("run " + scenario("incast_congestion") + " -o " + dir + "/a --set phases.measure=50us");
  REQUIRE(r.exit_code == 0);
  auto a = results_and_tables(dir + "/a");
  CHECK(a["flows"][0]["sources"] == 4);
  CHECK(a["saturation"]["saturated"] == false);
  CHECK(a["load"]["accepted"].get<double>() == Approx(a["load"]["offered"].get<double>()).epsilon(0.05));
  r = run_ibfsim("run " + scenario("incast_congestion") + " -o " + dir + "/b --set phases.measure=50us"
                 " --set workload.load=0.3 --set phases.drain=10us");
  REQUIRE(r.exit_code == 0);
  auto b = results_and_tables(dir + "/b");
  CHECK(b["saturation"]["saturated"] == true);
  CHECK(b["load"]["accepted"].get<double>() <= 0.25 + 0.005);
  CHECK(b["load"]["accepted"].get<double>() > 0.24);
}

TEST_CASE("permutation on a torus: every host sends to one other and the run drains at 0.2", "[scenarios][study]") {
  const std::string dir = scratch_dir("study_perm");
  const CommandResult r = run_ibfsim("run " + scenario("permutation_torus") + " -o " + dir + " --set phases.measure=30us");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto j = results_and_tables(dir);
  const auto& f = j["flows"][0];
  CHECK(f["sources"] == 128);
  CHECK(f["silent_sources"] == 0);
  CHECK(f["messages"]["measured_undelivered"] == 0);
  CHECK(j["phases"]["drained"] == true);
  // Every host receives: each is the image of exactly one source under the permutation.
  for (const auto& p : j["ports"])
    if (p["node"].get<std::string>()[0] == 'h') CHECK(p["rx_packets"].get<std::uint64_t>() > 0);
}

TEST_CASE("all-to-all and ring allreduce scenarios complete every iteration within the link-rate bounds", "[scenarios][study]") {
  // RC WRITE payload rate on 4x EDR: a full packet is 4096 payload bytes in 4122 + 2 bytes of
  // wire, 129 edges: 4096 B / 330.24 ns = 99.22 Gb/s at most per link.
  const double link_gbps = 4096.0 * 8 / (129 * kEdgeNs);
  const std::string dir = scratch_dir("study_collectives");
  CommandResult r = run_ibfsim("run " + scenario("all_to_all") + " -o " + dir + "/a2a --set workload.iterations=1");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto a = results_and_tables(dir + "/a2a");
  const auto& ac = a["flows"][0]["collective"];
  CHECK(ac["completed"] == 1);
  CHECK(ac["steps"] == 127);
  // Each host sends 127 blocks of 16 KiB through its one link: at least 127 x 16384 x 8 / 99.22 Gb/s.
  CHECK(ac["fct_ns"]["min"].get<double>() > 127 * 16384 * 8 / link_gbps);
  CHECK(ac["bus_bandwidth_gbps"].get<double>() < link_gbps);
  r = run_ibfsim("run " + scenario("ring_allreduce") + " -o " + dir + "/ring --set workload.0.iterations=1");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  auto g = results_and_tables(dir + "/ring");
  const auto& rc = g["flows"][0]["collective"];
  CHECK(rc["completed"] == 1);
  CHECK(rc["steps"] == 30);
  // 30 steps of a 256 KiB chunk each through every host's link: at least 30 x 262144 x 8 / 99.22 Gb/s.
  CHECK(rc["fct_ns"]["min"].get<double>() > 30 * 262144 * 8 / link_gbps);
  CHECK(rc["bus_bandwidth_gbps"].get<double>() < link_gbps);
  CHECK(g["flows"][1]["messages"]["measured_undelivered"] == 0);  // the background class on SL 1
}
