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

namespace {

// A ud_send traffic class on the quickstart fabric: seven hosts send 4 KiB messages (two 2 KiB
// packets each) to h1 at half their line rate, 3.5 times what h1's link takes.
nlohmann::json overloaded_class(const std::string& name, const std::string& measure) {
  return run_scenario_text(name, "quickstart.yaml\n"
                                 "workload: {name: incast, pattern: incast, destination: h1, transport: ud_send,\n"
                                 "           message_size: 4096, mtu: 2048, load: 0.5, arrival: constant}\n"
                                 "phases: {warmup: 0us, measure: " + measure + ", drain: 2us}\n");
}

}  // namespace

TEST_CASE("a saturated ud_send traffic class holds a bounded queue and counts the messages it did not build",
          "[scenarios][workload][classes]") {
  const nlohmann::json short_run = overloaded_class("class_backlog_20us", "20us");
  const nlohmann::json long_run = overloaded_class("class_backlog_160us", "160us");
  const auto& s = short_run["flows"][0];
  const auto& l = long_run["flows"][0];
  for (const nlohmann::json* j : {&short_run, &long_run}) {
    INFO(j->dump());
    // Built and waiting for the wire: at most the bound plus the rest of one message, per source.
    CHECK((*j)["packets"]["queued_at_sources_at_end"].get<std::uint64_t>() <= 7 * (ibfsim::SendEngine::kFeedDepth + 1));
    CHECK((*j)["saturation"]["saturated"] == true);
    const auto& f = (*j)["flows"][0];
    // Offered counts every message that arrived, built or not: half of each source's link.
    CHECK(f["offered"]["load"].get<double>() == Approx(0.5).epsilon(0.01));
    // h1's link is shared by seven sources.
    CHECK(f["accepted"]["load"].get<double>() <= 1.0 / 7 + 0.002);
    CHECK(f["accepted"]["load"].get<double>() >= 1.0 / 7 - 0.01);
    // Every message that is not waiting was built, as two packets (the run's only packets).
    const auto offered = f["messages"]["offered"].get<std::uint64_t>();
    const auto waiting = f["messages"]["waiting_at_sources_at_end"].get<std::uint64_t>();
    CHECK((*j)["packets"]["created"].get<std::uint64_t>() == 2 * (offered - waiting));
    CHECK((*j)["saturation"]["messages_waiting_at_sources_at_end"] == waiting);
  }
  // Most of what arrives is never built: the waiting messages grow with the run (eight times
  // longer, about eight times as many); the built queue does not.
  const auto waiting = [](const nlohmann::json& f) { return f["messages"]["waiting_at_sources_at_end"].get<std::uint64_t>(); };
  CHECK(waiting(s) > 0);
  CHECK(waiting(l) > 7 * waiting(s));
  // Messages are timed from their arrival: the longer the backlog, the longer they waited.
  CHECK(l["message_latency"]["mean_ns"].get<double>() > 4 * s["message_latency"]["mean_ns"].get<double>());
}
