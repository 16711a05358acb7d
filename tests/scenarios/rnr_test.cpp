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
  // SEND k (k >= 1) reaches h2 about 1.2 us after h2 received SEND k-1: the ACK back to h1
  // (0.13 us), h1's completion (250 ns), doorbell (250 ns), payload DMA (2048 B at 14.4 GB/s,
  // 142 ns), the wire and switch (114 edges, 0.29 us), h2's DMA (142 ns). Its receive is posted
  // 25.25 us after that reception (completion 250 ns, then recv_post_delay 25 us). SEND 0 arrives
  // 0.7 us after the start, its receive is posted 25 us after. No receive: RNR NAK carrying h2's
  // min_rnr_timer, code 1 = 10 us; h1 resends when it expires. Each round takes about 10.7 us
  // (NAK back 0.13 us, the timer, DMA and wire again 0.58 us), so SEND k arrives about 1.2, 11.9,
  // 22.6 and 33.3 us after SEND k-1: three times before its receive (25.25 us), with 2.6 us to
  // spare, and once after it, 8 us later. So exactly 3 RNR NAKs per SEND.
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
