// Verbs flows of every transport and verb (tests/scenarios/data/verbs_all.yaml), bandwidth and
// latency tests, on a lossless fabric with data checking: all complete, all checked, none lost.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("verbs flows: RC, UC and UD with SEND, WRITE (with and without immediate), READ and atomics all deliver every byte",
          "[scenarios][verbs]") {
  const std::string dir = scratch_dir("verbs_all");
  CommandResult run = run_ibfsim("run " + data_path("verbs_all.yaml") + " -o " + dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/results.json"));
  REQUIRE(r["flows"].size() == 19);
  for (const auto& f : r["flows"]) {
    const std::string name = f["name"];
    INFO(name);
    const bool lat = f["test"] == "lat";
    const std::uint64_t n = lat ? 20 : 40;
    const std::string verb = f["verb"];
    const bool ping_pong = lat && (verb == "send" || verb == "write");
    CHECK(f["finished"] == true);
    CHECK(f["completions"] == nlohmann::json({{"IBV_WC_SUCCESS", n}}));
    if (ping_pong) CHECK(f["to_side"]["send_completions"] == nlohmann::json({{"IBV_WC_SUCCESS", n}}));
    const bool receives = verb == "send" || verb == "send_imm" || verb == "write_imm";
    if (receives) CHECK(f["receive_completions"] == nlohmann::json({{"IBV_WC_SUCCESS", n}}));
    CHECK(f["bytes_completed"] == n * f["message_size_bytes"].get<std::uint64_t>());
    CHECK(f["retransmitted_packets"] == 0);
    CHECK(f["from_side"]["qp_state"] == "RTS");
    CHECK(f["to_side"]["qp_state"] == "RTS");
    const auto& dc = f["data_check"];
    CHECK(dc["passed"] == true);
    CHECK(dc["content_mismatches"] == 0);
    CHECK(dc["out_of_order"] == 0);
    CHECK(dc["lost"] == 0);
    CHECK(dc["target_bytes_differing"] == 0);
    // Where each message is checked: a UC WRITE without immediate completes at the wire and
    // leaves nothing to complete at the target, so only the end-of-run memory comparison sees it;
    // a ping-pong checks both directions.
    const std::uint64_t checked = name == "uc_write" ? 0 : ping_pong ? 2 * n : n;
    CHECK(dc["messages_checked"] == checked);
    // Reads change nothing at the target; everything else leaves its messages there.
    CHECK(dc["target_unchanged"] == (verb == "read"));
    CHECK(f["latency"]["count"] == (lat ? n - 1 : n));
  }
  CHECK(r["packets"]["dropped_total"] == 0);
}

TEST_CASE("verbs flows: with a duration, a bw flow posts while the time lasts and then drains", "[scenarios][verbs]") {
  const std::string dir = scratch_dir("verbs_duration");
  CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/perftest_write_bw.yaml -o " + dir +
                                 " --set workload.0.iterations=null --set workload.0.duration=100us");
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/results.json"));
  const auto& f = r["flows"][0];
  // 128 WRITEs of 64 KiB are posted at the start; each completion before 100 us posts one more.
  // The link carries one message per 2066 edges (5.289 us, see perftest_test.cpp); WRITE k
  // completes about 1.33 us + (k + 1) x 5.289 us after the start (first packet after the doorbell
  // and DMA, 0.53 us; the last packet's DMA at h2, 0.28 us; ACK back, 0.13 us; switch, 0.13 us;
  // completion 250 ns): WRITEs 0-17 complete before 100 us (the 18th at 96.5 us), the 19th at
  // 101.8 us. So 128 + 18 = 146 are posted, and all complete.
  CHECK(f["duration_ns"] == 100000.0);
  CHECK(f["messages_posted"] == 146);
  CHECK(f["completions"] == nlohmann::json({{"IBV_WC_SUCCESS", 146}}));
  CHECK(f["finished"] == true);
}
