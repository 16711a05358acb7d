#include <catch2/catch.hpp>

#include "sim/core/symbol_clock.h"
#include "sim/core/time.h"

using namespace ibfsim;

TEST_CASE("parse_duration is exact to the femtosecond", "[core][time]") {
  CHECK(parse_duration("100ns") == 100 * kNs);
  CHECK(parse_duration("2.5us") == 2'500 * kNs);
  CHECK(parse_duration("1 ms") == kMs);
  CHECK(parse_duration("0.000001ns") == 1);
  CHECK(parse_duration("750fs") == 750);
  CHECK_THROWS_AS(parse_duration("10"), std::invalid_argument);
  CHECK_THROWS_AS(parse_duration("ns"), std::invalid_argument);
  CHECK_THROWS_AS(parse_duration("1.5fs"), std::invalid_argument);
  CHECK_THROWS_AS(parse_duration("3 parsecs"), std::invalid_argument);
}

TEST_CASE("format_duration prints exact values", "[core][time]") {
  CHECK(format_duration(2'560'000) == "2.56 ns");
  CHECK(format_duration(kUs) == "1 us");
  CHECK(format_duration(999) == "999 fs");
}

TEST_CASE("a rational symbol clock never accumulates error", "[core][time]") {
  SymbolClock fdr(14'080'000, 3);  // 66 bits at 14.0625 Gbaud
  CHECK(fdr.time_of(0) == 0);
  CHECK(fdr.time_of(1) == 4'693'333);
  CHECK(fdr.time_of(3) == 14'080'000);
  CHECK(fdr.time_of(3'000'000'000ull) == 14'080'000ull * 1'000'000'000ull);
  CHECK(fdr.cycle_at_or_after(0) == 0);
  CHECK(fdr.cycle_at_or_after(1) == 1);
  CHECK(fdr.cycle_at_or_after(4'693'333) == 1);
  CHECK(fdr.cycle_at_or_after(4'693'334) == 2);
  CHECK(fdr.edge_at_or_after(14'080'000) == 14'080'000);
  for (std::uint64_t n = 0; n < 1000; ++n) CHECK(fdr.cycle_at_or_after(fdr.time_of(n)) == n);
}
