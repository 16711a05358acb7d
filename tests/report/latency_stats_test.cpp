#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <vector>

#include "sim/core/rank_event_codec.h"
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

namespace {
// Sample i of a long run: a spread of latencies from 1 us up, in no particular order.
Time long_run_sample(std::uint64_t i) { return kUs + (i * 2654435761u) % (50 * kUs); }
std::vector<std::uint8_t> bytes_of(const LatencyStats& s) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  s.encode(w);
  return out;
}
}  // namespace

TEST_CASE("latency stats keep every sample up to kExactSamples, then a histogram: memory stays flat", "[report]") {
  constexpr std::size_t kLimit = LatencyStats::kExactSamples;
  LatencyStats s;
  LatencyHistogram h;
  unsigned __int128 sum = 0;
  for (std::uint64_t i = 0; i < kLimit; ++i) {
    s.add(long_run_sample(i));
    h.add(long_run_sample(i));
    sum += long_run_sample(i);
  }
  REQUIRE(s.exact());
  // Exact: the nearest-rank sample itself (i -> i * 2654435761 mod 50 us walks the residues).
  std::vector<Time> sorted;
  for (std::uint64_t i = 0; i < kLimit; ++i) sorted.push_back(long_run_sample(i));
  std::sort(sorted.begin(), sorted.end());
  CHECK(s.percentile(99) == sorted[(99 * kLimit + 99) / 100 - 1]);
  s.add(long_run_sample(kLimit));
  h.add(long_run_sample(kLimit));
  sum += long_run_sample(kLimit);
  REQUIRE_FALSE(s.exact());
  CHECK(s.count() == kLimit + 1);
  // Past the limit: percentiles are the histogram's, count, min, max and mean still exact.
  for (double p : {0.0, 50.0, 90.0, 99.0, 99.9, 100.0}) CHECK(s.percentile(p) == h.percentile(p));
  CHECK(s.min() == h.min());
  CHECK(s.max() == h.max());
  CHECK(s.sum_fs() == sum);
  CHECK(s.mean_fs() == h.mean_fs());
  const Time exact_p99 = sorted[(99 * kLimit + 99) / 100 - 1];
  CHECK(std::abs(static_cast<double>(s.percentile(99)) - static_cast<double>(exact_p99)) <=
        LatencyHistogram::kRelativeError * static_cast<double>(exact_p99) + kUs * 1e-6);
}

TEST_CASE("latency stats past the limit are the same however the samples were split and merged", "[report]") {
  constexpr std::size_t kTotal = LatencyStats::kExactSamples + 1000;
  LatencyStats whole, first, second, third;
  for (std::uint64_t i = 0; i < kTotal; ++i) whole.add(long_run_sample(i));
  // Three ranks' shares: two below the limit each, one tiny; merged in two orders.
  for (std::uint64_t i = 0; i < kTotal; ++i) (i % 2 ? first : (i % 7 ? second : third)).add(long_run_sample(i));
  REQUIRE(first.exact());
  REQUIRE(second.exact());
  LatencyStats a = first;
  a.merge(second);
  a.merge(third);
  LatencyStats b = third;
  b.merge(second);
  b.merge(first);
  CHECK_FALSE(a.exact());
  CHECK(bytes_of(a) == bytes_of(whole));
  CHECK(bytes_of(b) == bytes_of(whole));
  // Merging a histogram into an exact one, and back through bytes.
  LatencyStats c = third;
  c.merge(whole);
  LatencyStats d = whole;
  d.merge(third);
  CHECK(bytes_of(c) == bytes_of(d));
  std::vector<std::uint8_t> raw = bytes_of(whole);
  ByteReader r(raw);
  const LatencyStats back = LatencyStats::decode(r);
  CHECK(back.count() == whole.count());
  CHECK(back.percentile(99.9) == whole.percentile(99.9));
  CHECK(back.mean_fs() == whole.mean_fs());
  CHECK(bytes_of(back) == raw);
}
