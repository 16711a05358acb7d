#include "sim/workload/perftest_latency.h"

#include <algorithm>
#include <cmath>

namespace ibfsim {

PerftestLatency perftest_latency(std::vector<Time> d, double factor) {
  PerftestLatency l;
  l.count = d.size();
  if (d.empty()) return l;
  std::sort(d.begin(), d.end());
  const std::size_t n = d.size();
  const double typical = n % 2 == 0 ? (static_cast<double>(d[n / 2]) + static_cast<double>(d[n / 2 - 1])) / 2.0
                                    : static_cast<double>(d[n / 2]);
  unsigned __int128 sum = 0;
  for (Time t : d) sum += t;
  const double mean = static_cast<double>(sum) / static_cast<double>(n);
  double var = 0;
  for (Time t : d) var += (static_cast<double>(t) - mean) * (static_cast<double>(t) - mean);
  // Nearest rank: the smallest sample with at least p% of the samples at or below it.
  auto rank = [&](std::size_t per_mille) {
    const std::size_t r = std::max<std::size_t>(1, (per_mille * n + 999) / 1000);
    return static_cast<double>(d[r - 1]);
  };
  l.min_fs = static_cast<double>(d.front()) / factor;
  l.typical_fs = typical / factor;
  l.mean_fs = mean / factor;
  l.stdev_fs = std::sqrt(var / static_cast<double>(n)) / factor;
  l.p99_fs = rank(990) / factor;
  l.p99_9_fs = rank(999) / factor;
  l.max_fs = static_cast<double>(d.back()) / factor;
  return l;
}

}  // namespace ibfsim
