// Exact latency statistics over every sample of a run: results must be byte-identical for the same
// scenario and seed, so nothing here depends on floating-point summation order or on estimation.
#pragma once
#include <cstddef>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

class ByteWriter;
class ByteReader;

// Collects latency samples (femtoseconds) and answers count, min, max, mean and percentiles.
// Keeps every sample (8 bytes each); percentiles sort them once, lazily. Not thread-safe, including
// const calls (percentile sorts in place).
//
// min/max/mean_fs/percentile throw std::logic_error when there are no samples: check count().
class LatencyStats {
 public:
  void add(Time sample_fs);

  std::size_t count() const { return samples_.size(); }
  Time min() const;
  Time max() const;
  // Exact sum of all samples (cannot overflow: 2^64 samples of up to 2^64 fs would be needed).
  unsigned __int128 sum_fs() const { return sum_; }
  // sum / count from the exact integer sum: the integer quotient plus remainder/count, so the only
  // rounding is the final conversion to double.
  double mean_fs() const;

  // Nearest-rank percentile: the smallest sample x such that at least p% of the samples are <= x,
  // i.e. the sample of rank ceil(p/100 * N) in ascending order (rank 1 when p is 0). p is in
  // [0, 100] and is first rounded to a whole number of 1e-7 percent (parts per billion), so the rank
  // is computed in integers and a decimal p like 99.9 means exactly 99.9. Always one of the
  // samples. Throws std::invalid_argument for p outside [0, 100] or NaN.
  Time percentile(double p) const;

  void clear();

  // Takes in another's samples (a run across MPI ranks: each rank's deliveries).
  void merge(const LatencyStats& other);
  // As bytes and back: every sample, in the order held.
  void encode(ByteWriter& w) const;
  static LatencyStats decode(ByteReader& r);

 private:
  void require_samples(const char* what) const;

  mutable std::vector<Time> samples_;
  mutable bool sorted_ = true;
  unsigned __int128 sum_ = 0;
  Time min_ = kTimeNever;
  Time max_ = 0;
};

}  // namespace ibfsim
