// The progress line's text, and that the meter stays silent when its output is not a terminal.
#include <catch2/catch.hpp>

#include <cstdio>

#include "sim/report/progress_meter.h"

using namespace ibfsim;

namespace {
Time fixed_now() { return 50 * kUs; }
}  // namespace

TEST_CASE("progress line: simulated time of the total, wall time and the time left at this pace", "[report][progress]") {
  // A quarter done in 10 s: 30 s left.
  CHECK(progress_line(0, 50 * kUs, 200 * kUs, 10.0) == "simulated 50 us of 200 us (25.0%), wall 10 s, about 30 s left");
  // Counted from the start of traffic; minutes once past 60 s.
  CHECK(progress_line(100 * kUs, 150 * kUs, 300 * kUs, 90.0) ==
        "simulated 50 us of 200 us (25.0%), wall 1 min 30 s, about 4 min 30 s left");
  // Nothing done yet: no estimate.
  CHECK(progress_line(0, 0, 200 * kUs, 1.0) == "simulated 0 fs of 200 us (0.0%), wall 1 s");
  // Four significant digits at most.
  CHECK(progress_line(0, 388'845'847'791, 5'120'104'320'000, 2.0) ==
        "simulated 388.8 us of 5.12 ms (7.6%), wall 2 s, about 24 s left");
  // The bring-up: no end known, so no share and no estimate.
  CHECK(progress_line(0, 1'250 * kUs, kTimeNever, 75.0) == "bring-up: simulated 1.25 ms, wall 1 min 15 s");
}

TEST_CASE("progress meter: nothing at all when the output is not a terminal", "[report][progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    ProgressMeter m(0, 200 * kUs, &fixed_now, f);
    CHECK_FALSE(m.active());  // no thread was started
  }
  CHECK(std::ftell(f) == 0);
  std::fclose(f);
}
