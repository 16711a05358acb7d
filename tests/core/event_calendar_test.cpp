#include <catch2/catch.hpp>

#include <algorithm>
#include <tuple>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/core/rng.h"

using namespace ibfsim;

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
      cal.push(at, nullptr, 0, seq, nullptr);
      pushed.emplace_back(at, seq++);
    } else {
      Action a = cal.pop();
      REQUIRE(a.at >= now);
      now = a.at;
      popped.emplace_back(a.at, a.arg);
    }
  }
  while (!cal.empty()) {
    Action a = cal.pop();
    popped.emplace_back(a.at, a.arg);
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

TEST_CASE("an empty calendar jumps straight to a far action", "[core][calendar]") {
  EventCalendar cal;
  cal.push(5 * kSec, nullptr, 1, 0, nullptr);
  cal.push(5 * kSec, nullptr, 2, 0, nullptr);
  cal.push(7 * kSec, nullptr, 3, 0, nullptr);
  CHECK(cal.top().kind == 1);
  CHECK(cal.pop().kind == 1);
  cal.push(5 * kSec, nullptr, 4, 0, nullptr);
  CHECK(cal.pop().kind == 2);
  CHECK(cal.pop().kind == 4);
  CHECK(cal.pop().at == 7 * kSec);
  CHECK(cal.empty());
}

TEST_CASE("a push earlier than the head after the wheel moved ahead rewinds it", "[core][calendar]") {
  EventCalendar cal;
  cal.push(10 * kUs, nullptr, 1, 0, nullptr);
  cal.push(9 * kUs, nullptr, 2, 0, nullptr);  // within the horizon of the rewound window
  CHECK(cal.top().kind == 2);                  // window now at 9 us
  cal.push(1 * kUs, nullptr, 3, 0, nullptr);   // 10 us is now beyond the horizon: goes far
  cal.push(3 * kUs, nullptr, 4, 0, nullptr);
  CHECK(cal.pop().kind == 3);
  CHECK(cal.pop().kind == 4);
  CHECK(cal.pop().kind == 2);
  CHECK(cal.pop().kind == 1);
  CHECK(cal.empty());
}
