// scenarios/pfc_deadlock.yaml: RoCE WRITEs two switches clockwise around a ring of 6 switches on a
// lossless priority deadlock; the run stops at the detector's check with exit status 4, the cycle
// of paused ports and results.json marked with it. Its variant on the line (the ring's wrap cable
// cut) completes with every message delivered. `ibfsim routes --deadlock-check` on both: a cycle
// on the ring, none on the line.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const std::string kScenario = std::string(IBFSIM_SOURCE_DIR) + "/scenarios/pfc_deadlock.yaml";
const std::string kLine = " --set topology=../topologies/line_6.yaml";

}  // namespace

TEST_CASE("pfc_deadlock.yaml: the ring deadlocks, the run stops with exit status 4 naming the cycle",
          "[scenarios][roce][pfc][deadlock]") {
  const std::string dir = scratch_dir("pfc_deadlock_ring");
  const CommandResult r = run_ibfsim("run " + kScenario + " -o " + dir + " --event-trace " + dir + "/events.tsv");
  INFO(r.output);
  CHECK(r.exit_code == 4);
  // The event trace: the first PFC frame a switch port acts on (an XOFF: the first pause) at
  // 8,660.4 ns, and the detector's one check, a window (100 us) later.
  const std::string events = read_file(dir + "/events.tsv");
  const std::size_t first_pause = events.find("\tEthernetPort::control_frame_tail\tsw");
  REQUIRE(first_pause != std::string::npos);
  CHECK(events.substr(events.rfind('\n', first_pause) + 1, first_pause - events.rfind('\n', first_pause) - 1) ==
        "8660.400000");
  CHECK(events.find("108660.400000\tPfcDeadlockDetector::check\tpfc_deadlock_detector") != std::string::npos);
  std::size_t checks = 0;
  for (std::size_t at = events.find("PfcDeadlockDetector::check"); at != std::string::npos;
       at = events.find("PfcDeadlockDetector::check", at + 1))
    ++checks;
  CHECK(checks == 1);
  // The first pause (8.6604 us) arms the check a window (100 us) later: every clockwise egress has
  // been paused since, frames waiting. The cycle starts at the first switch's (the depth-first
  // search's first vertex).
  const std::string message = "PFC deadlock at 108.6604 us: priority 3: cycle of 6 paused ports: "
                              "sw0/2 -> sw1/2 -> sw2/2 -> sw3/2 -> sw4/2 -> sw5/2 -> sw0/2";
  CHECK(r.output.find("error: " + message + "\n") != std::string::npos);
  const nlohmann::json j = nlohmann::json::parse(read_file(dir + "/results.json"));
  CHECK(j["partial"] == true);
  CHECK(j["stopped_by"] == "pfc_deadlock");
  CHECK(j["deadlock"]["message"] == message);
  CHECK(j["deadlock"]["priority"] == 3);
  CHECK(j["deadlock"]["time_fs"] == 108'660'400'000);
  CHECK(j["deadlock"]["cycle"] == nlohmann::json({"sw0/2", "sw1/2", "sw2/2", "sw3/2", "sw4/2", "sw5/2"}));
  CHECK(j["ethernet"]["switch_dropped"] == 0);
  // Stuck: no WRITE completed, and the frames in the ring never arrive.
  for (const auto& f : j["flows"]) {
    CHECK(f["finished"] == false);
    CHECK(f["messages_completed"] == 0);
  }
  CHECK(j["packets"]["delivered"] < j["packets"]["created"]);
}

TEST_CASE("pfc_deadlock.yaml on the line (the wrap cable cut): every message delivered", "[scenarios][roce][pfc][deadlock]") {
  const std::string dir = scratch_dir("pfc_deadlock_line");
  const CommandResult r = run_ibfsim("run " + kScenario + kLine + " -o " + dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const nlohmann::json j = nlohmann::json::parse(read_file(dir + "/results.json"));
  CHECK(j["partial"] == false);
  CHECK_FALSE(j.contains("deadlock"));
  REQUIRE(j["flows"].size() == 6);
  for (const auto& f : j["flows"]) {
    INFO(f.dump());
    CHECK(f["finished"] == true);
    CHECK(f["messages_completed"] == 40);
    CHECK(f["bytes_completed"] == 40 * 65536);
    CHECK(f["retransmitted_packets"] == 0);
  }
  CHECK(j["packets"]["created"] == 4080);
  CHECK(j["packets"]["delivered"] == 4080);
  CHECK(j["packets"]["dropped_total"] == 0);
  CHECK(j["ethernet"]["switch_dropped"] == 0);
}

TEST_CASE("routes --deadlock-check on pfc_deadlock.yaml: a cycle on the ring, none on the line",
          "[scenarios][roce][deadlock]") {
  const CommandResult ring = run_ibfsim("routes " + kScenario + " --deadlock-check");
  INFO(ring.output);
  CHECK(ring.exit_code == 0);
  CHECK(ring.output ==
        "deadlock check: priority 3, 24 channels, 36 dependencies\n"
        "priority 3: cycle of 6 channels: sw0/2 -> sw1/3, sw1/2 -> sw2/3, sw2/2 -> sw3/3, sw3/2 -> sw4/3, "
        "sw4/2 -> sw5/3, sw5/2 -> sw0/3\n"
        "deadlock check: cycles in 1 priority (12 channels in cycles): deadlock possible\n");
  const CommandResult line = run_ibfsim("routes " + kScenario + kLine + " --deadlock-check");
  INFO(line.output);
  CHECK(line.exit_code == 0);
  // 11 cables: 22 channels, the line's paths of up to five switch hops in both directions.
  CHECK(line.output ==
        "deadlock check: priority 3, 22 channels, 28 dependencies\n"
        "deadlock check: no cycle in any priority: deadlock-free\n");
  const CommandResult bad = run_ibfsim("routes " + kScenario + " --routing minhop --deadlock-check");
  CHECK(bad.exit_code == 2);
  CHECK(bad.output == "error: --routing: only used on InfiniBand, got it with fabric: roce\n");
  const CommandResult lfts = run_ibfsim("routes " + kScenario);
  CHECK(lfts.exit_code == 2);
  CHECK(lfts.output.find("expected --deadlock-check (the check of its L3 routes)") != std::string::npos);
}

TEST_CASE("roce.deadlock_window: a window of 0 is refused at its key", "[scenarios][roce][deadlock]") {
  const CommandResult r = run_ibfsim("run " + kScenario + " --set roce.deadlock_window=0us -o " +
                                     scratch_dir("pfc_deadlock_bad_window"));
  INFO(r.output);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("a duration above 0 (PFC deadlock detection's window)") != std::string::npos);
}
