// A log-linear latency histogram (the HdrHistogram layout): values below 512 fs each have their
// own bucket; above, every power-of-two range [2^k, 2^(k+1)) is cut into 256 equal buckets. It
// takes any Time (up to 2^64 fs) in at most 14,592 buckets (grown as needed: about 6,000 for
// latencies up to a millisecond), so memory does not grow with the number of samples.
//
// Error bound: a percentile is the midpoint of the bucket that holds the exact nearest-rank
// sample (clamped to [min, max]; ranks 1 and N give min and max themselves); a bucket [low, low + w) has w <= low / 256, so the reported value
// is within kRelativeError = 1/512 (0.195%) of the exact nearest-rank percentile. Count, min, max
// and the mean (from the exact integer sum) are exact. Deterministic: integers only, and merging
// histograms in any order gives the same result.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

class ByteWriter;
class ByteReader;

class LatencyHistogram {
 public:
  static constexpr unsigned kSubBucketBits = 8;  // 256 buckets per power of two
  static constexpr double kRelativeError = 1.0 / 512;

  void add(Time v);
  void merge(const LatencyHistogram& other);
  // As bytes and back, exactly (every non-empty bucket, the count, sum, min and max): a run across
  // MPI ranks merges its ranks' histograms (sim/core/rank_exchange.h).
  void encode(ByteWriter& w) const;
  static LatencyHistogram decode(ByteReader& r);

  std::uint64_t count() const { return count_; }
  // min/max/mean_fs/percentile need count() > 0 (std::logic_error otherwise).
  Time min() const;
  Time max() const;
  unsigned __int128 sum_fs() const { return sum_; }
  double mean_fs() const;
  // Nearest rank as LatencyStats::percentile defines it (rank ceil(p/100 * N), p rounded to 1e-7
  // percent), answered from the bucket holding that rank: within kRelativeError of the exact value.
  Time percentile(double p) const;

  // The bucket layout, for tests: the bucket of v, and the lowest value and width of a bucket.
  static std::size_t bucket_of(Time v);
  static Time bucket_low(std::size_t index);
  static Time bucket_width(std::size_t index);

 private:
  void require_samples(const char* what) const;

  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  unsigned __int128 sum_ = 0;
  Time min_ = kTimeNever;
  Time max_ = 0;
};

}  // namespace ibfsim
