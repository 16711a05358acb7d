#include "sim/report/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/core/rank_event_codec.h"

namespace ibfsim {

void LatencyStats::add(Time sample_fs) {
  if (!samples_.empty() && sample_fs < samples_.back()) sorted_ = false;
  samples_.push_back(sample_fs);
  sum_ += sample_fs;
  min_ = std::min(min_, sample_fs);
  max_ = std::max(max_, sample_fs);
}

void LatencyStats::require_samples(const char* what) const {
  if (samples_.empty()) throw std::logic_error(std::string("LatencyStats::") + what + " with no samples");
}

Time LatencyStats::min() const {
  require_samples("min");
  return min_;
}

Time LatencyStats::max() const {
  require_samples("max");
  return max_;
}

double LatencyStats::mean_fs() const {
  require_samples("mean_fs");
  const unsigned __int128 n = samples_.size();
  // The quotient is at most max_, so it fits 64 bits.
  const auto whole = static_cast<std::uint64_t>(sum_ / n);
  const auto rem = static_cast<std::uint64_t>(sum_ % n);
  return static_cast<double>(whole) + static_cast<double>(rem) / static_cast<double>(samples_.size());
}

Time LatencyStats::percentile(double p) const {
  if (!(p >= 0.0 && p <= 100.0)) {
    throw std::invalid_argument("percentile " + std::to_string(p) + " is outside [0, 100]");
  }
  require_samples("percentile");
  constexpr unsigned long long kPartsPerWhole = 1'000'000'000ULL;
  const auto ppb = static_cast<unsigned long long>(std::llround(p * 1e7));  // p/100 in 1e-9 units
  const unsigned __int128 n = samples_.size();
  // rank = ceil(ppb * N / 1e9), at least 1.
  auto rank = static_cast<std::size_t>((ppb * n + kPartsPerWhole - 1) / kPartsPerWhole);
  rank = std::max<std::size_t>(rank, 1);
  if (!sorted_) {
    std::sort(samples_.begin(), samples_.end());
    sorted_ = true;
  }
  return samples_[rank - 1];
}

void LatencyStats::clear() {
  samples_.clear();
  sorted_ = true;
  sum_ = 0;
  min_ = kTimeNever;
  max_ = 0;
}

void LatencyStats::merge(const LatencyStats& o) {
  for (Time t : o.samples_) add(t);
}

void LatencyStats::encode(ByteWriter& w) const {
  w.put(static_cast<std::uint64_t>(samples_.size()));
  for (Time t : samples_) w.put(t);
}

LatencyStats LatencyStats::decode(ByteReader& r) {
  LatencyStats s;
  const auto n = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < n; ++i) s.add(r.get<Time>());
  return s;
}

}  // namespace ibfsim
