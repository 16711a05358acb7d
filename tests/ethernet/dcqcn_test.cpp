// DCQCN as pure state machines (transport/roce/dcqcn_reaction_point.h,
// dcqcn_notification_point.h): exact rates, alpha and deadlines after given CNP, timer and byte
// events, and the CNP interval of the notification point.
#include <catch2/catch.hpp>

#include "sim/transport/roce/dcqcn_notification_point.h"
#include "sim/transport/roce/dcqcn_reaction_point.h"

using namespace ibfsim;

namespace {
constexpr std::uint64_t kLine = 100'000'000'000;  // 100 Gb/s
}  // namespace

TEST_CASE("DCQCN reaction point: the first CNP halves the line rate, fast recovery halves the gap to the target",
          "[ethernet][dcqcn]") {
  const DcqcnConfig c;  // the paper's: g 1/256, K = T = 55 us, B 10 MB, F 5, R_AI 40 Mb/s
  DcqcnReactionPoint rp(c, kLine);
  CHECK_FALSE(rp.limited());
  CHECK(rp.rate_bps() == kLine);
  CHECK(rp.alpha_deadline() == kTimeNever);
  // First CNP at 10 us: RC = RT = line, alpha = 1; RT = RC; RC x (1 - 1/2); alpha stays 1.
  CHECK(rp.on_cnp(10 * kUs));
  CHECK(rp.limited());
  CHECK(rp.rate_bps() == 50'000'000'000);
  CHECK(rp.target_bps() == kLine);
  CHECK(rp.alpha() == 1.0);
  CHECK(rp.alpha_deadline() == 65 * kUs);
  CHECK(rp.increase_deadline() == 65 * kUs);
  // A timer event that is not the deadline is stale: nothing changes.
  CHECK_FALSE(rp.on_increase_timer(64 * kUs));
  CHECK(rp.timer_stage() == 0);
  // At 65 us: alpha decays to 255/256; the timer's first stage: fast recovery, RC = (RT + RC) / 2.
  rp.on_alpha_timer(65 * kUs);
  CHECK(rp.alpha() == 0.99609375);
  CHECK(rp.alpha_deadline() == 120 * kUs);
  CHECK(rp.on_increase_timer(65 * kUs));
  CHECK(rp.timer_stage() == 1);
  CHECK(rp.rate_bps() == 75'000'000'000);
  CHECK(rp.target_bps() == kLine);
  CHECK(rp.increase_deadline() == 120 * kUs);
  // A second CNP at 100 us: RT = 75 G; RC = 75 G x (1 - 0.99609375 / 2) = 37,646,484,375;
  // alpha = (255/256) x 0.99609375 + 1/256 = 0.9961090087890625; both timers restart.
  CHECK(rp.on_cnp(100 * kUs));
  CHECK(rp.target_bps() == 75'000'000'000);
  CHECK(rp.rate_bps() == 37'646'484'375);
  CHECK(rp.alpha() == 0.9961090087890625);
  CHECK(rp.timer_stage() == 0);
  CHECK(rp.alpha_deadline() == 155 * kUs);
  CHECK(rp.increase_deadline() == 155 * kUs);
  // The old deadlines' events come and change nothing.
  CHECK_FALSE(rp.on_increase_timer(120 * kUs));
  rp.on_alpha_timer(120 * kUs);
  CHECK(rp.alpha() == 0.9961090087890625);
  // Five stages of fast recovery (F = 5), each halving the gap to 75 G (rounded up):
  // 56,323,242,188  65,661,621,094  70,330,810,547  72,665,405,274  73,832,702,637.
  const std::uint64_t fast[] = {56'323'242'188, 65'661'621'094, 70'330'810'547, 72'665'405'274, 73'832'702'637};
  Time t = 155 * kUs;
  for (const std::uint64_t want : fast) {
    CHECK(rp.on_increase_timer(t));
    CHECK(rp.rate_bps() == want);
    CHECK(rp.target_bps() == 75'000'000'000);
    t += 55 * kUs;
  }
  CHECK(rp.counters().fast_recovery == 6);  // with the one before the second CNP
  // Stage 6: additive increase, RT + 40 Mb/s, then RC halfway there (rounded up).
  CHECK(rp.on_increase_timer(t));
  CHECK(rp.timer_stage() == 6);
  CHECK(rp.target_bps() == 75'040'000'000);
  CHECK(rp.rate_bps() == 74'436'351'319);
  CHECK(rp.counters().additive == 1);
  CHECK(rp.counters().hyper == 0);  // the byte counter's stage is still 0
}

TEST_CASE("DCQCN reaction point: the byte counter's stages, hyper increase once both counts pass F, and release "
          "at the line rate",
          "[ethernet][dcqcn]") {
  DcqcnConfig c;
  c.increase_bytes = 1000;
  c.fast_recovery_steps = 2;
  c.additive_increase_bps = 1'000'000'000;
  c.hyper_increase_bps = 10'000'000'000;
  DcqcnReactionPoint rp(c, kLine);
  // Bytes before any CNP count for nothing.
  CHECK_FALSE(rp.on_bytes_sent(5000, 0));
  CHECK(rp.on_cnp(0));
  REQUIRE(rp.rate_bps() == 50'000'000'000);
  // 999 bytes: no stage yet; one more: stage 1, fast recovery (max(t, b) = 1 <= F = 2).
  CHECK_FALSE(rp.on_bytes_sent(999, 1 * kUs));
  CHECK(rp.bytes_toward_stage() == 999);
  CHECK(rp.on_bytes_sent(1, 2 * kUs));
  CHECK(rp.byte_stage() == 1);
  CHECK(rp.rate_bps() == 75'000'000'000);
  // 2,500 bytes: stage 2 (fast recovery, to 87.5 G) and stage 3 (500 bytes left over): additive,
  // b > F with t = 0, RT + 1 G capped at the line rate, RC (100 + 87.5) / 2.
  CHECK(rp.on_bytes_sent(2500, 3 * kUs));
  CHECK(rp.byte_stage() == 3);
  CHECK(rp.bytes_toward_stage() == 500);
  CHECK(rp.counters().fast_recovery == 2);
  CHECK(rp.counters().additive == 1);
  CHECK(rp.target_bps() == kLine);
  CHECK(rp.rate_bps() == 93'750'000'000);
  // A CNP: RT = 93.75 G, RC = 93.75 G x (1 - alpha / 2) with alpha = 1 (1, g-averaged with 1).
  CHECK(rp.alpha() == 1.0);
  CHECK(rp.on_cnp(10 * kUs));
  CHECK(rp.rate_bps() == 46'875'000'000);
  CHECK(rp.target_bps() == 93'750'000'000);
  CHECK(rp.bytes_toward_stage() == 0);
  // Timer stages at 65, 120, 175 us, then byte stages; once both counts are above F = 2, hyper
  // increase by (min(t, b) - F) x R_HAI.
  CHECK(rp.on_increase_timer(65 * kUs));   // t 1: fast recovery
  CHECK(rp.rate_bps() == 70'312'500'000);
  CHECK(rp.on_increase_timer(120 * kUs));  // t 2: fast recovery
  CHECK(rp.rate_bps() == 82'031'250'000);
  CHECK(rp.on_increase_timer(175 * kUs));  // t 3, b 0: additive, RT 94.75 G
  CHECK(rp.target_bps() == 94'750'000'000);
  CHECK(rp.rate_bps() == 88'390'625'000);
  CHECK(rp.on_bytes_sent(3000, 176 * kUs));  // b 1 and 2: additive; b 3: hyper (min(3, 3) > 2)
  CHECK(rp.byte_stage() == 3);
  CHECK(rp.counters().additive == 4);
  CHECK(rp.counters().hyper == 1);
  // RT 95.75, 96.75, then + (3 - 2) x 10 G capped at 100 G; RC halfway each time:
  // 92,070,312,500  94,410,156,250  97,205,078,125.
  CHECK(rp.target_bps() == kLine);
  CHECK(rp.rate_bps() == 97'205'078'125);
  // Halving toward 100 G reaches it exactly (rounded up): the QP is released, its timers stop.
  Time t = 230 * kUs;
  int steps = 0;
  while (rp.limited()) {
    REQUIRE(rp.on_increase_timer(t));
    t += 55 * kUs;
    ++steps;
  }
  CHECK(steps == 32);
  CHECK(rp.rate_bps() == kLine);
  CHECK(rp.counters().releases == 1);
  CHECK(rp.alpha_deadline() == kTimeNever);
  CHECK(rp.increase_deadline() == kTimeNever);
  // The next CNP is a first CNP again: alpha back to its initial value, the line rate halved.
  CHECK(rp.on_cnp(t));
  CHECK(rp.rate_bps() == 50'000'000'000);
  CHECK(rp.alpha() == 1.0);
}

TEST_CASE("DCQCN reaction point: cuts stop at the minimum rate, and rate_on_first_cnp sets where the first cut "
          "starts",
          "[ethernet][dcqcn]") {
  DcqcnConfig c;
  c.min_rate_bps = 20'000'000'000;
  c.rate_on_first_cnp_bps = 60'000'000'000;
  DcqcnReactionPoint rp(c, kLine);
  CHECK(rp.on_cnp(0));
  CHECK(rp.target_bps() == 60'000'000'000);
  CHECK(rp.rate_bps() == 30'000'000'000);
  CHECK(rp.on_cnp(1 * kUs));
  CHECK(rp.rate_bps() == 20'000'000'000);  // 15 G would be below the minimum
  CHECK_FALSE(rp.on_cnp(2 * kUs));         // stays at the minimum
  CHECK(rp.counters().cuts == 3);
}

// Why two flows that each get an isolated CNP now and then do not converge (dcqcn_fabric_test.cpp):
// a cut sets RT to the rate before it, and fast recovery (F timer periods) brings RC back to within
// 1/2^F of RT, so an isolated CNP leaves no lasting decrease. Only a CNP during the fast recovery
// of the one before (CNPs every N < T, sustained congestion) lowers RT, and the cut sticks.
TEST_CASE("DCQCN reaction point: an isolated cut is undone by fast recovery, a repeated one sticks",
          "[ethernet][dcqcn]") {
  const DcqcnConfig c;
  const auto recover = [&](DcqcnReactionPoint& rp) {
    for (int i = 0; i < 5; ++i) REQUIRE(rp.on_increase_timer(rp.increase_deadline()));
    CHECK(rp.timer_stage() == 5);
  };
  DcqcnReactionPoint once(c, kLine);
  CHECK(once.on_cnp(0));
  recover(once);
  CHECK(once.rate_bps() == 98'437'500'000);  // 100 - 50 / 32 Gb/s: back within 1/32 of the line
  CHECK(once.target_bps() == kLine);

  DcqcnReactionPoint twice(c, kLine);
  CHECK(twice.on_cnp(0));
  CHECK(twice.on_cnp(50 * kUs));  // the notification point's interval later, before the timer's 55 us
  CHECK(twice.target_bps() == 50'000'000'000);
  CHECK(twice.rate_bps() == 25'000'000'000);  // alpha is still 1
  CHECK(twice.increase_deadline() == 105 * kUs);
  recover(twice);
  CHECK(twice.rate_bps() == 49'218'750'000);  // 50 - 25 / 32 Gb/s: the second cut stuck
  CHECK(twice.target_bps() == 50'000'000'000);
}

TEST_CASE("DCQCN notification point: at most one CNP per QP every N", "[ethernet][dcqcn]") {
  DcqcnNotificationPoint np(50 * kUs);
  CHECK(np.on_ce_marked(0x100, 3 * kUs));
  CHECK_FALSE(np.on_ce_marked(0x100, 52 * kUs));   // 49 us after: suppressed
  CHECK(np.on_ce_marked(0x101, 52 * kUs));         // another QP has its own interval
  CHECK(np.on_ce_marked(0x100, 53 * kUs));         // 50 us after the last CNP
  CHECK_FALSE(np.on_ce_marked(0x100, 102 * kUs));  // counted from 53, not from 52
  CHECK(np.on_ce_marked(0x100, 103 * kUs));
  CHECK(np.counters().ce_marked == 6);
  CHECK(np.counters().cnps == 4);
  CHECK(np.counters().suppressed == 2);
}

// clamp_target_rate false (ConnectX's defaults, ns-3's CLAMP_TARGET_RATE 0): a cut with no timer
// increase since the last cut leaves RT where it was; a cut after one sets RT = RC as the paper does.
TEST_CASE("DCQCN reaction point: without clamp_target_rate only a cut after a timer increase lowers the target",
          "[ethernet][dcqcn]") {
  DcqcnConfig c;
  c.clamp_target_rate = false;
  DcqcnReactionPoint rp(c, kLine);
  CHECK(rp.on_cnp(0));  // the first CNP: RT = line, RC = 50 G, alpha 1
  CHECK(rp.target_bps() == kLine);
  CHECK(rp.rate_bps() == 50'000'000'000);
  // A second CNP 10 us later, before the timer's first stage: RC x (1 - 1/2), RT stays 100 G.
  CHECK(rp.on_cnp(10 * kUs));
  CHECK(rp.target_bps() == kLine);
  CHECK(rp.rate_bps() == 25'000'000'000);
  // One timer stage (at 65 us): fast recovery to 62.5 G; a CNP after it clamps RT to 62.5 G and
  // cuts by half again (alpha is still 1: each CNP averages it with 1).
  CHECK(rp.on_increase_timer(65 * kUs));
  CHECK(rp.rate_bps() == 62'500'000'000);
  CHECK(rp.on_cnp(70 * kUs));
  CHECK(rp.target_bps() == 62'500'000'000);
  CHECK(rp.rate_bps() == 31'250'000'000);
  // With the paper's clamp the second CNP would have set RT to 50 G.
  const DcqcnConfig paper_config;
  DcqcnReactionPoint paper(paper_config, kLine);
  paper.on_cnp(0);
  paper.on_cnp(10 * kUs);
  CHECK(paper.target_bps() == 50'000'000'000);
}

// increase_bytes 0: no byte counter; the timer's stage count alone picks fast recovery (t <= F)
// and then hyper increase (t > F), where a byte counter that never counts would keep it additive.
TEST_CASE("DCQCN reaction point: without a byte counter the timer's stages alone reach hyper increase",
          "[ethernet][dcqcn]") {
  DcqcnConfig c;
  c.increase_bytes = 0;
  c.fast_recovery_steps = 1;
  c.additive_increase_bps = 20'000'000;
  c.hyper_increase_bps = 200'000'000;
  c.increase_period = 300 * kUs;
  DcqcnReactionPoint rp(c, kLine);
  CHECK(rp.on_cnp(0));
  CHECK(rp.rate_bps() == 50'000'000'000);
  CHECK_FALSE(rp.on_bytes_sent(1'000'000, 1 * kUs));  // no byte counter: nothing counts
  CHECK(rp.byte_stage() == 0);
  CHECK(rp.on_increase_timer(300 * kUs));  // t 1 <= F: fast recovery to 75 G
  CHECK(rp.rate_bps() == 75'000'000'000);
  CHECK(rp.target_bps() == kLine);
  // A cut at 301 us (RT = 75 G), then t 1: fast recovery; t 2 > F: hyper, RT + (2 - 1) x 200 Mb/s.
  CHECK(rp.on_cnp(301 * kUs));
  const std::uint64_t cut = rp.rate_bps();
  CHECK(rp.target_bps() == 75'000'000'000);
  CHECK(rp.on_increase_timer(601 * kUs));
  CHECK(rp.rate_bps() == (75'000'000'000 + cut + 1) / 2);
  CHECK(rp.on_increase_timer(901 * kUs));
  CHECK(rp.target_bps() == 75'200'000'000);
  CHECK(rp.counters().hyper == 1);
  CHECK(rp.counters().additive == 0);
  // With the byte counter on (B 10 MB) and no bytes sent, the same stages stay additive.
  DcqcnConfig with = c;
  with.increase_bytes = 10'000'000;
  DcqcnReactionPoint rp2(with, kLine);
  rp2.on_cnp(0);
  rp2.on_increase_timer(300 * kUs);
  rp2.on_increase_timer(600 * kUs);
  CHECK(rp2.counters().additive == 1);
  CHECK(rp2.counters().hyper == 0);
}
