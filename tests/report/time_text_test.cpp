#include <catch2/catch.hpp>

#include "sim/report/time_text.h"

using namespace ibfsim;

TEST_CASE("ns_text gives nanoseconds exactly, for tables", "[report][time]") {
  CHECK(ns_text(0) == "0");
  CHECK(ns_text(1234 * kNs) == "1234");
  CHECK(ns_text(1234 * kNs + 560 * kPs) == "1234.56");
  CHECK(ns_text(1) == "0.000001");
  CHECK(ns_text(4'693'333'333) == "4693.333333");
}
