// scenarios/security.yaml: each protection violation is rejected as the IBA says (R34, R36, R37)
// and leaves the target memory as it was, every outcome counted exactly.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {
const nlohmann::json& flow(const nlohmann::json& r, const std::string& name) {
  for (const auto& f : r["flows"])
    if (f["name"] == name) return f;
  throw std::runtime_error("no flow " + name);
}
}  // namespace

TEST_CASE("security.yaml: wrong R_Key, out of bounds, no remote write, wrong P_Key, wrong Q_Key each rejected, memory unchanged",
          "[scenarios][security]") {
  const std::string dir = scratch_dir("security");
  CommandResult run = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/security.yaml -o " + dir);
  INFO(run.output);
  REQUIRE(run.exit_code == 0);
  const nlohmann::json r = results_and_tables(dir);

  // Four RC WRITEs of 4 KiB are posted at once on each flow (tx_depth 4), each flow alone on the
  // fabric (they start 20 us apart). The responder checks the first one's RETH (R_Key, bounds,
  // access; R34), NAKs it with remote access error and goes to ERR; the other three reach a QP in
  // ERR and are ignored. The requester completes the first with IBV_WC_REM_ACCESS_ERR, goes to
  // ERR and flushes the rest. All four packets were built before the NAK came back: in 2.56 ns
  // edges from the first packet's start c, each packet (LRH+BTH+RETH+4096+ICRC+VCRC = 4138 B) takes
  // 130 edges and the next is built as one starts, so the fourth is built at c+260; the first
  // reaches h2 at c+179 (switch start at c+45, as in perftest_test.cpp, + 4 + 130), its payload DMA
  // takes 284 ns (111 edges), and the NAK (1 edge) is back at h1 51 edges later: about c+341.
  for (const char* name : {"wrong_rkey", "out_of_bounds", "no_remote_write"}) {
    INFO(name);
    const auto& f = flow(r, name);
    CHECK(f["finished"] == true);
    CHECK(f["completions"] == nlohmann::json({{"IBV_WC_REM_ACCESS_ERR", 1}, {"IBV_WC_WR_FLUSH_ERR", 3}}));
    CHECK(f["messages_completed"] == 0);
    CHECK(f["from_side"]["qp_state"] == "ERR");
    CHECK(f["to_side"]["qp_state"] == "ERR");
    CHECK(f["to_side"]["counters"]["remote_access_errors"] == 1);
    CHECK(f["to_side"]["counters"]["error_naks_sent"] == 1);
    CHECK(f["from_side"]["counters"]["error_naks_received"] == 1);
    CHECK(f["from_side"]["counters"]["packets_sent"] == 4);
    CHECK(f["retransmitted_packets"] == 0);
    CHECK(f["data_check"]["target_unchanged"] == true);
    CHECK(f["data_check"]["target_bytes_differing"] == 0);
  }

  // P_Key 0x8001 (h1's entry 1) against h2's 0x8002: another partition. h2 drops every packet
  // (R37) and counts it; nothing reaches the responder QP, which stays in RTS. The requester's
  // local ACK timer (4.096 us x 2^4) expires 3 times: after the first try and after each of
  // retry_cnt = 2 retries, each resending all 4 WRITEs (go back to the oldest unacknowledged):
  // 12 packets, 8 of them retransmissions, 12 P_Key violations. The third expiry completes the
  // first WRITE with IBV_WC_RETRY_EXC_ERR and flushes the others.
  {
    const auto& f = flow(r, "wrong_pkey");
    CHECK(f["completions"] == nlohmann::json({{"IBV_WC_RETRY_EXC_ERR", 1}, {"IBV_WC_WR_FLUSH_ERR", 3}}));
    CHECK(f["ack_timeouts"] == 3);
    CHECK(f["from_side"]["counters"]["packets_sent"] == 12);
    CHECK(f["retransmitted_packets"] == 8);
    CHECK(f["from_side"]["qp_state"] == "ERR");
    CHECK(f["to_side"]["qp_state"] == "RTS");
    CHECK(f["to_side"]["counters"]["acks_sent"] == 0);
    CHECK(f["data_check"]["target_unchanged"] == true);
    CHECK(f["data_check"]["target_bytes_differing"] == 0);
  }
  CHECK(r["packets"]["dropped"]["pkey_violation"] == 12);

  // UD SENDs with Q_Key 0x22222222 to a QP whose Q_Key is 0x11111111: silently dropped and
  // counted (R36). UD completes on the wire: the sender sees 4 successes; the target none, and
  // its 4 posted receive buffers are untouched.
  {
    const auto& f = flow(r, "wrong_qkey");
    CHECK(f["completions"] == nlohmann::json({{"IBV_WC_SUCCESS", 4}}));
    CHECK(f["receive_completions"] == nlohmann::json::object());
    CHECK(f["to_side"]["receives_posted"] == 4);
    CHECK(f["qkey_violations"] == 4);
    CHECK(f["data_check"]["lost"] == 4);  // UD may lose messages: counted, not a data-check failure
    CHECK(f["data_check"]["passed"] == true);
    CHECK(f["to_side"]["qp_state"] == "RTS");
    CHECK(f["data_check"]["target_unchanged"] == true);
    CHECK(f["data_check"]["target_bytes_differing"] == 0);
  }
  // Nothing else is lost: the dropped packets are the P_Key and Q_Key violations (a Q_Key
  // violation is a drop at the receiving port, Q_KeyViolations, like a P_Key violation).
  CHECK(r["packets"]["dropped"]["qkey_mismatch"] == 4);
  // ... each counted at the port that received it (P_KeyViolations, Q_KeyViolations).
  CHECK(discards(r, "pkey_violation") == 12);
  CHECK(discards(r, "qkey_mismatch") == 4);
  CHECK(r["packets"]["dropped_total"] == 12 + 4);
  CHECK(r["phases"]["drained"] == true);
}
