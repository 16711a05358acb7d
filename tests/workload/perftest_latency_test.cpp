// perftest's latency figures over plain samples: the median as get_median computes it, the
// round-trip factor, nearest-rank percentiles.
#include <catch2/catch.hpp>

#include "sim/workload/perftest_latency.h"

using namespace ibfsim;

TEST_CASE("perftest latency: an odd count's t_typical is the middle sample, halved for ping-pong", "[workload][perftest]") {
  const PerftestLatency l = perftest_latency({50, 10, 30, 20, 40}, 2.0);
  CHECK(l.count == 5);
  CHECK(l.min_fs == 5.0);
  CHECK(l.typical_fs == 15.0);  // sorted 10 20 30 40 50: the middle is 30, / 2
  CHECK(l.max_fs == 25.0);
  CHECK(l.mean_fs == 15.0);
  // Population standard deviation of 10..50: sqrt(200) = 14.142..., / 2.
  CHECK(l.stdev_fs == Approx(7.0710678118654755));
}

TEST_CASE("perftest latency: an even count's t_typical is the mean of the two middle samples", "[workload][perftest]") {
  const PerftestLatency l = perftest_latency({7, 1, 4, 2}, 1.0);
  CHECK(l.typical_fs == 3.0);  // sorted 1 2 4 7: (2 + 4) / 2
  CHECK(l.mean_fs == 3.5);
}

TEST_CASE("perftest latency: 99th and 99.9th percentiles are nearest-rank samples", "[workload][perftest]") {
  std::vector<Time> d;
  for (Time i = 1; i <= 1000; ++i) d.push_back(i);
  const PerftestLatency l = perftest_latency(d, 1.0);
  CHECK(l.p99_fs == 990.0);    // rank ceil(0.99 x 1000) = 990
  CHECK(l.p99_9_fs == 999.0);  // rank ceil(0.999 x 1000) = 999
  const PerftestLatency small = perftest_latency({3, 1, 2}, 1.0);
  CHECK(small.p99_fs == 3.0);  // rank ceil(2.97) = 3
  CHECK(perftest_latency({}, 2.0).count == 0);
}
