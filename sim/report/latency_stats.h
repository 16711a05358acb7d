// Latency statistics over every sample of a run: results must be byte-identical for the same
// scenario and seed, so nothing here depends on floating-point summation order or on the order the
// samples came in.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/time.h"
#include "sim/report/latency_histogram.h"

namespace ibfsim {

class ByteWriter;
class ByteReader;

// Collects latency samples (femtoseconds) and answers count, min, max, mean and percentiles.
// Keeps every sample (8 bytes each) up to kExactSamples, and percentiles are then exact (they sort
// the samples once, lazily). Past that many, so that memory stays flat however long a run lasts,
// the samples move into a LatencyHistogram and percentiles come from it, within
// LatencyHistogram::kRelativeError (1/512) of the exact value; count, min, max and mean stay exact.
// Which of the two a figure comes from depends only on the number of samples, never on their
// order or on how they were split (merge), so results stay byte-identical across partitions and
// ranks. Not thread-safe, including const calls (percentile sorts in place).
//
// min/max/mean_fs/percentile throw std::logic_error when there are no samples: check count().
class LatencyStats {
 public:
  static constexpr std::size_t kExactSamples = std::size_t{1} << 20;

  void add(Time sample_fs);

  std::size_t count() const { return count_; }
  // Whether percentiles are exact (at most kExactSamples samples).
  bool exact() const { return count_ <= kExactSamples; }
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
  // As bytes and back: every sample, in the order held (or the histogram, past kExactSamples).
  void encode(ByteWriter& w) const;
  static LatencyStats decode(ByteReader& r);

 private:
  void require_samples(const char* what) const;
  void to_histogram();  // past kExactSamples: the samples into histogram_

  mutable std::vector<Time> samples_;  // while exact()
  LatencyHistogram histogram_;         // once not exact()
  std::size_t count_ = 0;
  mutable bool sorted_ = true;
  unsigned __int128 sum_ = 0;
  Time min_ = kTimeNever;
  Time max_ = 0;
};

}  // namespace ibfsim
