// scenarios/rnr.yaml: a receiver that posts its receives late. Every SEND meets RNR NAKs, is
// resent after the RNR timer, and all arrive once, in order, byte for byte.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("rnr.yaml: 16 SENDs to a late receiver, 3 RNR NAKs each, none lost, all in order", "[scenarios][rnr]") {
  const std::string dir = scratch_dir("rnr");
  CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/rnr.yaml -o " + dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = nlohmann::json::parse(read_file(dir + "/results.json"));
  const auto& f = r["flows"][0];
  // One SEND of 2048 bytes (one packet) at a time; h2 has one receive posted at a time, posted
  // 25 us after the previous receive completed (the first 25 us after the start).
  // SEND k reaches h2 about 1.2 us after h2 received SEND k-1 (ACK back to h1, 250 ns to its
  // completion, 250 ns doorbell, 142 ns DMA, 0.3 us of wire and switch each way; for SEND 0: 0.7 us
  // after the start), while its receive is posted 25.25 us after (receive completion 250 ns, then
  // 25 us). No receive: RNR NAK with h2's min_rnr_timer, code 1 = 10 us; h1 resends when that
  // expires, about 10.6 us later each time (NAK trip 0.13 us, timer, DMA, wire). Arrivals at about
  // 1.2, 11.8, 22.4 and 33.0 us: the first three are before 25.25 us (RNR), the fourth after
  // (accepted), with 2.8 us of margin on each side. So exactly 3 RNR NAKs per SEND.
  CHECK(f["finished"] == true);
  CHECK(f["completions"] == nlohmann::json({{"IBV_WC_SUCCESS", 16}}));
  CHECK(f["receive_completions"] == nlohmann::json({{"IBV_WC_SUCCESS", 16}}));
  CHECK(f["rnr_naks"] == 48);
  CHECK(f["to_side"]["counters"]["rnr_naks_sent"] == 48);
  CHECK(f["retransmitted_packets"] == 48);  // each RNR NAK makes h1 resend that one packet
  CHECK(f["from_side"]["counters"]["packets_sent"] == 64);
  CHECK(f["to_side"]["counters"]["packets_sent"] == 64);  // 48 RNR NAKs + 16 ACKs
  CHECK(f["to_side"]["counters"]["acks_sent"] == 16);
  CHECK(f["seq_naks"] == 0);
  CHECK(f["ack_timeouts"] == 0);
  CHECK(f["to_side"]["counters"]["duplicates_received"] == 0);
  // No data lost: every message checked where it landed, in order, and the receive buffer holds
  // the last one (the end-of-run comparison).
  const auto& dc = f["data_check"];
  CHECK(dc["messages_checked"] == 16);
  CHECK(dc["content_mismatches"] == 0);
  CHECK(dc["out_of_order"] == 0);
  CHECK(dc["lost"] == 0);
  CHECK(dc["target_bytes_differing"] == 0);
  CHECK(dc["passed"] == true);
  CHECK(r["packets"]["dropped_total"] == 0);
}
