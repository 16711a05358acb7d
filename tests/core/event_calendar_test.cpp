#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>
#include <tuple>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/core/rng.h"

using namespace ibfsim;

namespace {
// Events whose argument is a tag, read back with tag_of, to check the order they pop in.
struct Tagged {
  void fire(std::uint64_t) {}
};
Tagged target;
Event tagged(Time at, std::uint64_t tag) { return make_event<&Tagged::fire>(at, &target, tag); }
std::uint64_t tag_of(const Event& e) {
  std::uint64_t t;
  std::memcpy(&t, e.args, sizeof t);
  return t;
}
}  // namespace

TEST_CASE("the calendar pops in (time, scheduling order) under random interleaved pushes and pops",
          "[core][calendar]") {
  // Reference: every pushed action as (time, seq); the calendar must pop them in sorted order,
  // including actions far beyond the wheel's horizon and pushes at the current instant.
  EventCalendar cal;
  RngStream rng(42, 0);
  std::vector<std::pair<Time, std::uint64_t>> pushed, popped;
  Time now = 0;
  std::uint64_t seq = 0;
  for (int step = 0; step < 200000; ++step) {
    const std::uint64_t r = rng.below(100);
    if (r >= 55 && r < 65 && !cal.empty()) {
      // Peeking moves the wheel to the head; later pushes may then land before it (rewind).
      REQUIRE(cal.top().at >= now);
      continue;
    }
    if (r < 55 || cal.empty()) {
      Time at;
      const std::uint64_t kind = rng.below(10);
      if (kind < 2) at = now;                                  // same instant
      else if (kind < 8) at = now + rng.below(3'000'000);      // within ~3 ns
      else if (kind < 9) at = now + rng.below(4 * kUs);        // within the wheel
      else at = now + rng.below(200 * kUs);                    // far beyond it
      cal.push(tagged(at, seq));
      pushed.emplace_back(at, seq++);
    } else {
      Event a = cal.pop();
      REQUIRE(a.at >= now);
      now = a.at;
      popped.emplace_back(a.at, tag_of(a));
    }
  }
  while (!cal.empty()) {
    Event a = cal.pop();
    popped.emplace_back(a.at, tag_of(a));
  }
  REQUIRE(popped.size() == pushed.size());
  // Popped order is nondecreasing in time, FIFO among equal times.
  for (std::size_t i = 1; i < popped.size(); ++i) {
    INFO(i);
    REQUIRE((popped[i - 1].first < popped[i].first ||
             (popped[i - 1].first == popped[i].first && popped[i - 1].second < popped[i].second)));
  }
  std::sort(pushed.begin(), pushed.end());
  std::sort(popped.begin(), popped.end());
  CHECK(pushed == popped);
}

TEST_CASE("an empty calendar jumps straight to a far event", "[core][calendar]") {
  EventCalendar cal;
  cal.push(tagged(5 * kSec, 1));
  cal.push(tagged(5 * kSec, 2));
  cal.push(tagged(7 * kSec, 3));
  CHECK(tag_of(cal.top()) == 1);
  CHECK(tag_of(cal.pop()) == 1);
  cal.push(tagged(5 * kSec, 4));
  CHECK(tag_of(cal.pop()) == 2);
  CHECK(tag_of(cal.pop()) == 4);
  CHECK(cal.pop().at == 7 * kSec);
  CHECK(cal.empty());
}

TEST_CASE("a push earlier than the head after the wheel moved ahead rewinds it", "[core][calendar]") {
  EventCalendar cal;
  cal.push(tagged(10 * kUs, 1));
  cal.push(tagged(9 * kUs, 2));  // within the horizon of the rewound window
  CHECK(tag_of(cal.top()) == 2);                  // window now at 9 us
  cal.push(tagged(1 * kUs, 3));   // 10 us is now beyond the horizon: goes far
  cal.push(tagged(3 * kUs, 4));
  CHECK(tag_of(cal.pop()) == 3);
  CHECK(tag_of(cal.pop()) == 4);
  CHECK(tag_of(cal.pop()) == 2);
  CHECK(tag_of(cal.pop()) == 1);
  CHECK(cal.empty());
}

TEST_CASE("the wheel holds as many event slots as were ever pending, however many buckets bursts visit",
          "[core][calendar]") {
  // A saturated fabric ends packets on every port at the same clock edge: bursts of events at one
  // instant, one packet time apart, wandering through all 4096 buckets over ~800 revolutions of
  // the wheel. Buckets with vectors of their own each kept room for a burst (it grew to 25 MB in
  // a 3 ms run, issue 16); the shared pool holds exactly the chunks of the most ever pending: two
  // bursts of 65 events, 8 chunks of 9 each.
  EventCalendar cal;
  constexpr int kBurst = 65;
  constexpr Time kGap = 335'544'321;  // ~335.5 ns: not a whole number of 2^20 fs buckets
  auto push_burst = [&](std::uint64_t k) {
    for (int i = 0; i < kBurst; ++i) cal.push(tagged(k * kGap, k * kBurst + static_cast<std::uint64_t>(i)));
  };
  push_burst(0);
  for (std::uint64_t k = 0; k < 10'000; ++k) {
    push_burst(k + 1);  // the next burst is already pending while this one runs
    for (int i = 0; i < kBurst; ++i) {
      const Event e = cal.pop();
      REQUIRE(e.at == k * kGap);
      REQUIRE(tag_of(e) == k * kBurst + static_cast<std::uint64_t>(i));
    }
  }
  CHECK(cal.size() == kBurst);
  static_assert(EventCalendar::kChunkEvents == 9, "9 events of 56 bytes and the chain's link fill 512 bytes");
  CHECK(cal.wheel_slots() == 2 * 8 * 9);
}
