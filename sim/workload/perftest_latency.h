// Latency figures of a set of samples the way perftest's ib_*_lat reports them: t_min, t_max,
// t_typical (the median: the middle sample, or the mean of the two middle ones, perftest's
// get_median), t_avg, t_stdev, and nearest-rank 99th and 99.9th percentiles; every sample is
// divided by perftest's rtt_factor (2 for SEND/WRITE ping-pong, 1 for READ and atomics).
// A pure function over plain data.
#pragma once
#include <cstddef>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

struct PerftestLatency {
  std::size_t count = 0;
  double min_fs = 0, typical_fs = 0, mean_fs = 0, stdev_fs = 0, p99_fs = 0, p99_9_fs = 0, max_fs = 0;
};

PerftestLatency perftest_latency(std::vector<Time> samples, double rtt_factor);

}  // namespace ibfsim
