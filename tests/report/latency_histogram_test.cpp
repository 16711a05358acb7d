// The log-linear histogram: its bucket layout, and its percentiles against the exact nearest-rank
// percentiles of the same samples (LatencyStats) on known distributions, which they must match
// within the stated relative error of 1/512.
#include <catch2/catch.hpp>

#include <cmath>
#include <vector>

#include "sim/core/rng.h"
#include "sim/report/latency_histogram.h"
#include "sim/report/latency_stats.h"

using namespace ibfsim;

namespace {

// Adds the samples to both and checks every percentile of interest, plus count, min, max, mean.
void check_against_exact(const std::vector<Time>& samples) {
  LatencyHistogram h;
  LatencyStats exact;
  for (Time s : samples) {
    h.add(s);
    exact.add(s);
  }
  REQUIRE(h.count() == exact.count());
  CHECK(h.min() == exact.min());
  CHECK(h.max() == exact.max());
  CHECK(h.sum_fs() == exact.sum_fs());
  CHECK(h.mean_fs() == exact.mean_fs());
  for (double p : {0.0, 1.0, 10.0, 25.0, 50.0, 75.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const double want = static_cast<double>(exact.percentile(p));
    const double got = static_cast<double>(h.percentile(p));
    INFO("p" << p << ": exact " << want << " fs, histogram " << got << " fs");
    CHECK(std::abs(got - want) <= want * LatencyHistogram::kRelativeError);
  }
}

}  // namespace

TEST_CASE("histogram buckets: exact below 512, then 256 per power of two", "[report][histogram]") {
  CHECK(LatencyHistogram::bucket_of(0) == 0);
  CHECK(LatencyHistogram::bucket_of(511) == 511);
  CHECK(LatencyHistogram::bucket_of(512) == 512);  // [512, 514): width 2
  CHECK(LatencyHistogram::bucket_of(513) == 512);
  CHECK(LatencyHistogram::bucket_of(514) == 513);
  CHECK(LatencyHistogram::bucket_of(1023) == 767);
  CHECK(LatencyHistogram::bucket_of(1024) == 768);  // [1024, 1028): width 4
  CHECK(LatencyHistogram::bucket_low(768) == 1024);
  CHECK(LatencyHistogram::bucket_width(768) == 4);
  // Every bucket is [low, low + width) and consecutive buckets touch.
  for (std::size_t b = 0; b + 1 < 20 * 256; ++b) {
    CHECK(LatencyHistogram::bucket_low(b) + LatencyHistogram::bucket_width(b) == LatencyHistogram::bucket_low(b + 1));
    CHECK(LatencyHistogram::bucket_of(LatencyHistogram::bucket_low(b)) == b);
    CHECK(LatencyHistogram::bucket_of(LatencyHistogram::bucket_low(b + 1) - 1) == b);
    // Width at most low / 256 (the source of the 1/512 bound on the midpoint).
    if (b >= 512) CHECK(LatencyHistogram::bucket_width(b) * 256 <= LatencyHistogram::bucket_low(b));
  }
  // The largest Time has a bucket.
  CHECK(LatencyHistogram::bucket_of(~Time{0}) == 55 * 256 + 511);
}

TEST_CASE("histogram percentiles within 1/512 of exact: uniform latencies", "[report][histogram]") {
  RngStream r(1, 1);
  std::vector<Time> s;
  for (int i = 0; i < 100000; ++i) s.push_back(500'000'000 + r.below(1'500'000'000));  // 0.5 .. 2 us
  check_against_exact(s);
}

TEST_CASE("histogram percentiles within 1/512 of exact: exponential latencies", "[report][histogram]") {
  RngStream r(2, 2);
  std::vector<Time> s;
  for (int i = 0; i < 100000; ++i) s.push_back(600'000'000 + static_cast<Time>(r.exponential(2e9)));  // 0.6 us + Exp(2 us)
  check_against_exact(s);
}

TEST_CASE("histogram percentiles within 1/512 of exact: log-normal with a heavy tail", "[report][histogram]") {
  RngStream r(3, 3);
  std::vector<Time> s;
  for (int i = 0; i < 50000; ++i) {
    // Box-Muller normal, then exp: a median of 1 us and a tail over 100 us.
    const double u1 = 1.0 - r.uniform(), u2 = r.uniform();
    const double z = std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2);
    s.push_back(static_cast<Time>(1e9 * std::exp(1.5 * z)));
  }
  check_against_exact(s);
}

TEST_CASE("histogram percentiles within 1/512 of exact: two spikes and tiny values", "[report][histogram]") {
  std::vector<Time> s;
  for (int i = 0; i < 900; ++i) s.push_back(295'360'000);    // a zero-load latency
  for (int i = 0; i < 99; ++i) s.push_back(1'785'897'803);   // a queueing tail
  s.push_back(7);                                            // exact region
  s.push_back(100);
  check_against_exact(s);
  LatencyHistogram h;
  for (Time v : s) h.add(v);
  // Identical samples: a percentile inside the spike is the spike itself (clamped to min/max
  // only at the ends), within the bound.
  CHECK(std::abs(static_cast<double>(h.percentile(50)) - 295'360'000.0) <= 295'360'000.0 / 512);
  CHECK(h.percentile(0) == 7);
  CHECK(h.percentile(100) == 1'785'897'803);
}

TEST_CASE("histograms merge to the histogram of all samples, in any order", "[report][histogram]") {
  RngStream r(4, 4);
  LatencyHistogram a, b, all;
  for (int i = 0; i < 1000; ++i) {
    const Time v = r.below(1'000'000'000'000);
    (i % 3 ? a : b).add(v);
    all.add(v);
  }
  LatencyHistogram ab = a, ba = b;
  ab.merge(b);
  ba.merge(a);
  for (double p : {50.0, 99.0, 99.9}) {
    CHECK(ab.percentile(p) == all.percentile(p));
    CHECK(ba.percentile(p) == all.percentile(p));
  }
  CHECK(ab.mean_fs() == all.mean_fs());
  CHECK_THROWS_AS(LatencyHistogram().percentile(50), std::logic_error);
}
