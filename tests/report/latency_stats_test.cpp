#include <catch2/catch.hpp>

#include "sim/report/latency_stats.h"

using namespace ibfsim;

TEST_CASE("latency percentiles use the nearest rank on a known sample set", "[report]") {
  LatencyStats s;
  for (Time ns : {35, 20, 50, 40, 15}) s.add(ns * kNs);  // out of order on purpose
  REQUIRE(s.count() == 5);
  CHECK(s.min() == 15 * kNs);
  CHECK(s.max() == 50 * kNs);
  CHECK(s.percentile(0) == 15 * kNs);
  CHECK(s.percentile(5) == 15 * kNs);    // rank ceil(0.25) = 1
  CHECK(s.percentile(20) == 15 * kNs);   // rank 1 exactly
  CHECK(s.percentile(30) == 20 * kNs);   // rank ceil(1.5) = 2
  CHECK(s.percentile(40) == 20 * kNs);   // rank 2
  CHECK(s.percentile(50) == 35 * kNs);   // rank ceil(2.5) = 3
  CHECK(s.percentile(100) == 50 * kNs);  // rank 5
  CHECK(s.mean_fs() == 32.0 * kNs);
}

TEST_CASE("latency percentiles treat decimal p exactly", "[report]") {
  LatencyStats s;
  for (Time i = 1; i <= 1000; ++i) s.add(i);
  CHECK(s.percentile(99.9) == 999);  // rank 999, not 1000 from 99.9's binary excess
  CHECK(s.percentile(99.95) == 1000);
  CHECK(s.percentile(50) == 500);
  CHECK(s.percentile(0.1) == 1);
  CHECK(s.percentile(0.1000001) == 2);
  s.add(0);  // adding after a percentile re-sorts
  CHECK(s.percentile(0) == 0);
  CHECK(s.min() == 0);
}

TEST_CASE("latency mean is exact beyond 64-bit sums", "[report]") {
  LatencyStats s;
  const Time big = ~Time{0} - 1;
  s.add(big);
  s.add(big);
  s.add(big - 2);
  CHECK(s.sum_fs() == static_cast<unsigned __int128>(big) * 3 - 2);
  CHECK(s.mean_fs() == static_cast<double>(big - 1) + 1.0 / 3.0);
  LatencyStats t;
  t.add(1);
  t.add(2);
  CHECK(t.mean_fs() == 1.5);
}

TEST_CASE("latency stats refuse questions without samples and bad percentiles", "[report]") {
  LatencyStats s;
  CHECK(s.count() == 0);
  CHECK_THROWS_AS(s.min(), std::logic_error);
  CHECK_THROWS_AS(s.max(), std::logic_error);
  CHECK_THROWS_AS(s.mean_fs(), std::logic_error);
  CHECK_THROWS_AS(s.percentile(50), std::logic_error);
  s.add(7);
  CHECK_THROWS_AS(s.percentile(-0.5), std::invalid_argument);
  CHECK_THROWS_AS(s.percentile(100.5), std::invalid_argument);
  CHECK_THROWS_AS(s.percentile(std::nan("")), std::invalid_argument);
  s.clear();
  CHECK(s.count() == 0);
  CHECK_THROWS_AS(s.min(), std::logic_error);
}
