// A UD generator flow offered more than the fabric takes keeps no backlog of built packets: at most
// SendEngine::kFeedDepth per VL of each source, however long the run; the rest of its messages wait
// unbuilt, count as offered, and their packets are dated from their arrival.
#include <catch2/catch.hpp>
#include <nlohmann/json.hpp>

#include "sim/transport/send_engine.h"
#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

nlohmann::json overloaded_run(const std::string& name, const std::string& measure) {
  const std::string dir = scratch_dir(name);
  // Eight hosts sending to random hosts at full line rate: destinations collide, so the fabric
  // accepts well under what is offered.
  const CommandResult r = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + dir +
                                     " --set workload.load=1.0 --set workload.arrival=constant --set phases.measure=" +
                                     measure + " --set phases.drain=2us");
  REQUIRE(r.exit_code == 0);
  return nlohmann::json::parse(read_file(dir + "/results.json"));
}

}  // namespace

TEST_CASE("a saturated UD source holds a bounded queue and counts what it could not build", "[scenarios][workload]") {
  const nlohmann::json short_run = overloaded_run("backlog_20us", "20us");
  const nlohmann::json long_run = overloaded_run("backlog_160us", "160us");
  for (const nlohmann::json* j : {&short_run, &long_run}) {
    INFO(j->dump());
    // Built and waiting for the wire: never more than the bound per source (one VL).
    CHECK((*j)["packets"]["queued_at_sources_at_end"].get<std::uint64_t>() <= 8 * ibfsim::SendEngine::kFeedDepth);
    CHECK((*j)["saturation"]["saturated"] == true);
    // The unbuilt messages count as offered: evenly spaced arrivals at load 1.0 offer the whole
    // link (to within one message per source in the window).
    CHECK((*j)["load"]["offered"].get<double>() == Approx(1.0).epsilon(0.01));
    CHECK((*j)["load"]["accepted"].get<double>() < 0.9);
  }
  // The backlog is of messages, not packets: it grows with the run, the built queue does not.
  const auto waiting = [](const nlohmann::json& j) {
    return j["saturation"]["messages_waiting_at_sources_at_end"].get<std::uint64_t>();
  };
  CHECK(waiting(long_run) > 4 * waiting(short_run));
  CHECK(waiting(short_run) > 0);
  // Packets are dated from their message's arrival: the longer the backlog, the longer they waited.
  CHECK(long_run["packet_latency"]["mean_ns"].get<double>() > 2 * short_run["packet_latency"]["mean_ns"].get<double>());
}
