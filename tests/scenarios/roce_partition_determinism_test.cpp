// A RoCE run's results do not depend on how its fabric is split (roce_hca_fabric_partitions.cpp):
// every file it writes is byte-identical at --threads 1, 2, 3 and 4, with PFC pause frames and
// DCQCN's CNPs crossing the cut cables, with a capture (which runs in one partition), on cables of
// several speeds, and through a PFC deadlock.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>

#include "tests/support/run_command.h"
#include "tests/support/same_at_any_split.h"

using namespace ibfsim::test;

namespace {

std::string source_path(const std::string& rel) { return std::string(IBFSIM_SOURCE_DIR) + "/" + rel; }

// roce_incast_victim.yaml's five WRITE flows, each posting for `duration`.
std::string incast_victim(const std::string& duration, const std::string& extra) {
  std::string s = source_path("scenarios/roce_incast_victim.yaml");
  for (int k = 0; k < 5; ++k) s += " --set workload." + std::to_string(k) + ".duration=" + duration;
  return s + " " + extra;
}

}  // namespace

// ECN and DCQCN on, and XOFF low enough that the spine also pauses the leaves before the senders'
// rates come down: both kinds of control frame cross the cut cables (11 of the 12 at 4 threads).
const std::string kPausesAndCnps =
    "--set congestion_control.enabled=true --set roce.pfc.xoff=32768 --set roce.pfc.xon=16384";

TEST_CASE("roce partitions: the incast with a victim, PFC pauses and DCQCN CNPs, the same at 1 to 4 threads",
          "[scenarios][partitions][roce]") {
  const SplitRuns runs =
      check_same_at_any_split("roce_incast_victim", incast_victim("100us", kPausesAndCnps), 4);
  const nlohmann::json r = nlohmann::json::parse(read_file(runs.dirs.front() + "/results.json"));
  CHECK(r["ethernet"]["pause_frames_sent"] == 266);
  CHECK(r["ethernet"]["pause_frames_received"] == 266);
  CHECK(r["ethernet"]["ecn_marked"] == 6);
  CHECK(r["dcqcn"] == nlohmann::json({{"cnps_received", 5}, {"cnps_sent", 5}, {"rate_cuts", 5}}));
}

TEST_CASE("roce partitions: the same incast captured (outputs.pcap) the same at 1 to 4 threads",
          "[scenarios][partitions][roce]") {
  // A capture is written in time order as the run goes: one partition however many threads. Its
  // 2,870 frames (266 PFC frames, 20 CNPs: 5 CNPs over 4 hops) are the same bytes each time.
  const SplitRuns runs = check_same_at_any_split(
      "roce_incast_capture", incast_victim("100us", kPausesAndCnps + " --set outputs.pcap=true"), 1);
  CHECK(runs.outputs.back().find("partitions: 1 (single)") != std::string::npos);
  CHECK(read_file(runs.dirs.front() + "/trace.pcap").size() == 10189248);
  // ... and the results of that one partition are those of four without the capture.
  const std::string split = scratch_dir("roce_incast_capture_split");
  const CommandResult r = run_ibfsim("run " + incast_victim("100us", kPausesAndCnps) + " -o " + split + " --threads 4");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  CHECK(partitions_in(r.output) == 4);
  for (const std::string& f : files_under(split)) {
    INFO(f);
    CHECK(read_file(split + "/" + f) == read_file(runs.dirs.front() + "/" + f));
  }
}

TEST_CASE("roce partitions: cables of their own speeds and lengths, windows of the least latency of any",
          "[scenarios][partitions][roce][speeds]") {
  // roce_mixed_speeds_test.cpp's fabric: the least latency is h3's 1 m of 50GbE, 31 edges of 160 ps
  // plus one: 5.12 ns, not the 400GbE link's between the switches. Two WRITE flows into h3 over it,
  // XOFF low: PFC pauses on every hop, and a CNP.
  const std::string dir = scratch_dir("roce_partitions_speeds");
  std::ofstream(dir + "/topo.yaml") << "nodes:\n"
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
  std::ofstream(dir + "/scenario.yaml")
      << "topology: topo.yaml\nfabric: roce\n"
         "roce: {dscp: 26, pfc: {priorities: [3], xoff: 16384, xon: 8192}}\n"
         "congestion_control: {enabled: true}\n"
         "workload:\n"
         "  - {transport: rc, verb: write, from: h1, to: h3, message_size: 65536, iterations: 20}\n"
         "  - {transport: rc, verb: write, from: h2, to: h3, message_size: 65536, iterations: 20}\n";
  // The flows' three hosts share a partition; the two switches need not.
  const SplitRuns runs = check_same_at_any_split("roce_speeds", dir + "/scenario.yaml", 3);
  for (const std::string& out : runs.outputs) CHECK(out.find("6911 windows of 5.12 ns") != std::string::npos);
  const nlohmann::json r = nlohmann::json::parse(read_file(runs.dirs.front() + "/results.json"));
  CHECK(r["ethernet"]["pause_frames_sent"] == 474);
  CHECK(r["dcqcn"]["cnps_sent"] == 1);
}

TEST_CASE("roce partitions: pfc_deadlock.yaml deadlocks at the same instant, the same at 1 to 4 threads",
          "[scenarios][partitions][roce]") {
  // Every switch of the ring pauses; those in different partitions each schedule a check, and the
  // checks that run are one calendar's: the cycle found at 108.6604 us, exit status 4.
  const SplitRuns runs =
      check_same_at_any_split("roce_pfc_deadlock", source_path("scenarios/pfc_deadlock.yaml"), 4, 4);
  for (const std::string& out : runs.outputs)
    CHECK(out.find("PFC deadlock at 108.6604 us: priority 3: cycle of 6 paused ports") != std::string::npos);
}
