// The source's congestion control index and inter-packet delay (cc_throttle.h,
// congestion_control_table.h): exact indices, timer expiries and delays.
#include <catch2/catch.hpp>

#include "sim/transport/cc_throttle.h"

using namespace ibfsim;

namespace {
CaCongestionConfig config(std::uint16_t timer, std::uint8_t increase, std::uint8_t min, std::uint16_t limit) {
  CaCongestionConfig c;
  for (auto& e : c.sl) e = {timer, increase, 0, min};
  c.cct = linear_cct(limit, 0, 1);
  return c;
}
}  // namespace

TEST_CASE("IPD = (Tp >> shift) x multiplier edges", "[transport][cc]") {
  CHECK(inter_packet_delay_edges({0, 0}, 66) == 0);
  CHECK(inter_packet_delay_edges({0, 1}, 66) == 66);
  CHECK(inter_packet_delay_edges({2, 3}, 66) == 48);   // 66 >> 2 = 16
  CHECK(inter_packet_delay_edges({3, 5}, 66) == 40);   // 66 >> 3 = 8
  CHECK(inter_packet_delay_edges({1, 16383}, 7) == 3 * 16383ull);
  CHECK(decode_cct_entry(encode_cct_entry({3, 1})) == CctEntry{3, 1});
  CHECK(encode_cct_entry({2, 0x3FFF}) == 0xBFFF);
}

TEST_CASE("linear CCT: entry i = shift:(i x step), multipliers capped at 16383", "[transport][cc]") {
  const CongestionControlTable t = linear_cct(5, 3, 2);
  REQUIRE(t.entries.size() == 6);
  CHECK(t.ccti_limit == 5);
  CHECK(t.entries[0] == CctEntry{3, 0});
  CHECK(t.entries[5] == CctEntry{3, 10});
  CHECK(linear_cct(3, 0, 10000).entries[3] == CctEntry{0, 16383});
}

TEST_CASE("each BECN adds CCTI_Increase up to CCTI_Limit", "[transport][cc]") {
  CcThrottle t(config(10, 3, 0, 7));
  const CcThrottle::Key k = t.key(0x101, 1, 0);
  CHECK(k == 0x101);
  t.on_becn(k, 0, 0);
  CHECK(t.ccti(k) == 3);
  t.on_becn(k, 0, 0);
  CHECK(t.ccti(k) == 6);
  t.on_becn(k, 0, 0);
  CHECK(t.ccti(k) == 7);  // capped
  CHECK(t.state(k)->becns == 3);
  CHECK(t.state(k)->max_ccti == 7);
}

TEST_CASE("the CCTI timer runs only while CCTI is above CCTI_Min, one expiry every CCTI_Timer x 1.024 us",
          "[transport][cc]") {
  CcThrottle t(config(10, 2, 1, 100));
  const CcThrottle::Key k = 0x100;
  const Time period = 10 * 1024 * kNs;
  auto first = t.on_becn(k, 0, 5 * kUs);  // starts at CCTI_Min 1, -> 3
  REQUIRE(first);
  CHECK(*first == 5 * kUs + period);
  CHECK(t.ccti(k) == 3);
  CHECK_FALSE(t.on_becn(k, 0, 6 * kUs));  // running: not restarted
  CHECK(t.ccti(k) == 5);
  CHECK_FALSE(t.on_timer(k, *first + 1));  // not its time: stale, no change
  CHECK(t.ccti(k) == 5);
  Time at = *first;
  for (int expected = 4; expected >= 2; --expected) {
    auto next = t.on_timer(k, at);
    REQUIRE(next);
    CHECK(*next == at + period);
    CHECK(t.ccti(k) == expected);
    at = *next;
  }
  CHECK_FALSE(t.on_timer(k, at));  // 2 -> 1 = CCTI_Min: the timer stops
  CHECK(t.ccti(k) == 1);
  CHECK(t.state(k)->timer_decrements == 4);
  CHECK(t.state(k)->timer_at == kTimeNever);
  auto again = t.on_becn(k, 0, at + kUs);  // a BECN after it stopped starts it again
  REQUIRE(again);
  CHECK(*again == at + kUs + period);
}

TEST_CASE("CCTI_Timer 0 never decreases the index", "[transport][cc]") {
  CcThrottle t(config(0, 1, 0, 10));
  CHECK_FALSE(t.on_becn(7, 0, 0));
  CHECK(t.ccti(7) == 1);
}

TEST_CASE("a flow's next packet waits the CCT entry of its CCTI after the end of its last one", "[transport][cc]") {
  CaCongestionConfig c = config(10, 1, 0, 3);
  c.cct.entries = {{0, 0}, {0, 1}, {2, 3}, {3, 5}};
  CcThrottle t(c);
  const SymbolClock clock(2'560'000, 1);  // 4x EDR 64b/66b block time, 2.56 ns
  // No BECN yet: no state, no delay.
  CHECK(t.sent(0x100, 0, 1000, 66, clock) == 0);
  CHECK(t.ready_at(0x100) == 0);
  t.on_becn(0x100, 0, 0);  // CCTI 1: entry 0:1, IPD = 66
  CHECK(t.sent(0x100, 0, 1000, 66, clock) == 66);
  CHECK(t.ready_at(0x100) == (1000 + 66 + 66) * 2'560'000ull);
  t.on_becn(0x100, 0, 0);  // CCTI 2: entry 2:3, IPD = 16 x 3
  CHECK(t.sent(0x100, 0, 2000, 66, clock) == 48);
  CHECK(t.ready_at(0x100) == (2000 + 66 + 48) * 2'560'000ull);
  CHECK(t.state(0x100)->delayed_packets == 2);
}

TEST_CASE("CCTI_Min above 0 throttles a flow from its first packet", "[transport][cc]") {
  CaCongestionConfig c = config(10, 1, 3, 3);
  c.cct.entries = {{0, 0}, {0, 1}, {2, 3}, {3, 5}};
  CcThrottle t(c);
  const SymbolClock clock(2'560'000, 1);
  CHECK(t.sent(0x100, 0, 0, 66, clock) == 40);  // CCTI 3: 3:5 -> 8 x 5
  CHECK(t.ccti(0x100) == 3);
  CHECK_FALSE(t.on_becn(0x100, 0, 0));  // already at the limit and the minimum: no timer
}

TEST_CASE("per-SL congestion control keys on port and SL, and each SL uses its own entry", "[transport][cc]") {
  CaCongestionConfig c = config(10, 1, 0, 10);
  c.per_sl = true;
  c.sl[4].ccti_increase = 5;
  CcThrottle t(c);
  const CcThrottle::Key a = t.key(0x100, 1, 4), b = t.key(0x200, 1, 4), d = t.key(0x100, 2, 4);
  CHECK(a == b);  // two QPs on the same port and SL share one index
  CHECK(a != d);
  CHECK(a == (CcThrottle::kSlKey | (1u << 4) | 4u));
  t.on_becn(a, 4, 0);
  CHECK(t.ccti(b) == 5);
  CHECK(t.ccti(d) == 0);
}

TEST_CASE("reaching Trigger_Threshold counts an event", "[transport][cc]") {
  CaCongestionConfig c = config(10, 2, 0, 20);
  for (auto& e : c.sl) e.trigger_threshold = 5;
  CcThrottle t(c);
  t.on_becn(1, 0, 0);  // 2
  t.on_becn(1, 0, 0);  // 4
  CHECK(t.state(1)->trigger_events == 0);
  t.on_becn(1, 0, 0);  // 6: crossed 5
  t.on_becn(1, 0, 0);  // 8
  CHECK(t.state(1)->trigger_events == 1);
}
