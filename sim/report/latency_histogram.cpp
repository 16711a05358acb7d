#include "sim/report/latency_histogram.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/core/rank_event_codec.h"

namespace ibfsim {

namespace {
constexpr std::uint64_t kSub = std::uint64_t{1} << LatencyHistogram::kSubBucketBits;  // 256
}

std::size_t LatencyHistogram::bucket_of(Time v) {
  if (v < 2 * kSub) return static_cast<std::size_t>(v);
  const unsigned top = 63u - static_cast<unsigned>(__builtin_clzll(v));  // floor(log2 v) >= 9
  const unsigned e = top - kSubBucketBits;                                // >= 1
  return static_cast<std::size_t>(e * kSub + (v >> e));                   // v >> e in [256, 512)
}

Time LatencyHistogram::bucket_low(std::size_t index) {
  if (index < 2 * kSub) return index;
  const std::uint64_t e = index / kSub - 1;
  const std::uint64_t m = index - e * kSub;  // in [256, 512)
  return m << e;
}

Time LatencyHistogram::bucket_width(std::size_t index) {
  if (index < 2 * kSub) return 1;
  return Time{1} << (index / kSub - 1);
}

void LatencyHistogram::add(Time v) {
  const std::size_t b = bucket_of(v);
  if (b >= counts_.size()) counts_.resize(b + 1, 0);
  ++counts_[b];
  ++count_;
  sum_ += v;
  min_ = std::min(min_, v);
  max_ = std::max(max_, v);
}

void LatencyHistogram::merge(const LatencyHistogram& o) {
  if (o.counts_.size() > counts_.size()) counts_.resize(o.counts_.size(), 0);
  for (std::size_t i = 0; i < o.counts_.size(); ++i) counts_[i] += o.counts_[i];
  count_ += o.count_;
  sum_ += o.sum_;
  min_ = std::min(min_, o.min_);
  max_ = std::max(max_, o.max_);
}

void LatencyHistogram::encode(ByteWriter& w) const {
  std::uint64_t buckets = 0;
  for (std::uint64_t n : counts_) buckets += n != 0;
  w.put(buckets);
  for (std::size_t i = 0; i < counts_.size(); ++i)
    if (counts_[i]) {
      w.put(static_cast<std::uint64_t>(i));
      w.put(counts_[i]);
    }
  w.put(count_);
  w.put(static_cast<std::uint64_t>(sum_ >> 64));
  w.put(static_cast<std::uint64_t>(sum_));
  w.put(min_);
  w.put(max_);
}

LatencyHistogram LatencyHistogram::decode(ByteReader& r) {
  LatencyHistogram h;
  const auto buckets = r.get<std::uint64_t>();
  for (std::uint64_t k = 0; k < buckets; ++k) {
    const auto i = static_cast<std::size_t>(r.get<std::uint64_t>());
    IBFSIM_CHECK(i < 64 * kSub, "a latency histogram from another rank: bucket out of range");
    if (i >= h.counts_.size()) h.counts_.resize(i + 1, 0);
    h.counts_[i] = r.get<std::uint64_t>();
  }
  h.count_ = r.get<std::uint64_t>();
  const auto high = r.get<std::uint64_t>(), low = r.get<std::uint64_t>();
  h.sum_ = (static_cast<unsigned __int128>(high) << 64) | low;
  h.min_ = r.get<Time>();
  h.max_ = r.get<Time>();
  return h;
}

void LatencyHistogram::require_samples(const char* what) const {
  if (count_ == 0) throw std::logic_error(std::string("LatencyHistogram::") + what + " with no samples");
}

Time LatencyHistogram::min() const {
  require_samples("min");
  return min_;
}

Time LatencyHistogram::max() const {
  require_samples("max");
  return max_;
}

double LatencyHistogram::mean_fs() const {
  require_samples("mean_fs");
  const auto whole = static_cast<std::uint64_t>(sum_ / count_);
  const auto rem = static_cast<std::uint64_t>(sum_ % count_);
  return static_cast<double>(whole) + static_cast<double>(rem) / static_cast<double>(count_);
}

Time LatencyHistogram::percentile(double p) const {
  if (!(p >= 0.0 && p <= 100.0)) throw std::invalid_argument("percentile " + std::to_string(p) + " is outside [0, 100]");
  require_samples("percentile");
  constexpr unsigned long long kPartsPerWhole = 1'000'000'000ULL;
  const auto ppb = static_cast<unsigned long long>(std::llround(p * 1e7));
  const unsigned __int128 n = count_;
  auto rank = static_cast<std::uint64_t>((ppb * n + kPartsPerWhole - 1) / kPartsPerWhole);
  rank = std::max<std::uint64_t>(rank, 1);
  // The smallest and largest samples are known exactly.
  if (rank == 1) return min_;
  if (rank >= count_) return max_;
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) {
      const Time mid = bucket_low(i) + (bucket_width(i) - 1) / 2;
      return std::clamp(mid, min_, max_);
    }
  }
  return max_;  // unreachable: the counts sum to count_
}

}  // namespace ibfsim
