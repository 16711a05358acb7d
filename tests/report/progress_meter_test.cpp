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

TEST_CASE("bring-up progress: the phase, nodes found of the topology's, SMPs and the time left", "[report][progress]") {
  BringUpProgress p;
  p.phase = "discovery";
  p.nodes_found = 1234;
  p.nodes_expected = 13284;
  p.requests = 25000;
  p.requests_expected = 100000;
  p.simulated = 3'200 * kUs;
  // A quarter of the SMPs in 12 s: 36 s left.
  CHECK(bring_up_progress_line(p, 12.0) ==
        "bring-up: discovery, 1,234 of 13,284 nodes found, 25,000 SMPs asked for, simulated 3.2 ms, wall 12 s, "
        "about 36 s left");
  // Past the estimate: never "0 s left" while it runs.
  p.phase = "activate";
  p.requests = 120000;
  CHECK(bring_up_progress_line(p, 99.0).find("about 1 s left") != std::string::npos);
  // Nothing known yet: no estimate.
  BringUpProgress none;
  CHECK(bring_up_progress_line(none, 1.0) == "bring-up: starting, 0 nodes found, 0 SMPs asked for, simulated 0 fs, wall 1 s");
}

TEST_CASE("progress meter: any text, from a function, silent off a terminal", "[report][progress]") {
  std::FILE* f = std::tmpfile();
  REQUIRE(f != nullptr);
  {
    ProgressMeter m([](double) { return std::string("results: writing results.json (1 of 9)"); }, f);
    CHECK_FALSE(m.active());
  }
  CHECK(std::ftell(f) == 0);
  std::fclose(f);
}

TEST_CASE("results progress: the file written of all, and a table's rows written of its rows", "[report][progress]") {
  CHECK(results_progress_line("ports.csv.zst", 1, 9, 12345, 69984, 3.0) ==
        "results: writing ports.csv.zst (1 of 9), 12,345 of 69,984 rows, wall 3 s");
  CHECK(results_progress_line("results.json", 8, 9, 0, 0, 75.0) == "results: writing results.json (8 of 9), wall 1 min 15 s");
  CHECK(progress_count(0) == "0");
  CHECK(progress_count(1234567) == "1,234,567");
}
