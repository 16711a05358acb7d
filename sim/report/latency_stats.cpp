#include "sim/report/latency_stats.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "sim/core/rank_event_codec.h"

namespace ibfsim {

void LatencyStats::add(Time sample_fs) {
  ++count_;
  if (count_ > kExactSamples) {
    if (!samples_.empty()) to_histogram();  // the first sample past the limit
    histogram_.add(sample_fs);
  } else {
    if (!samples_.empty() && sample_fs < samples_.back()) sorted_ = false;
    samples_.push_back(sample_fs);
  }
  sum_ += sample_fs;
  min_ = std::min(min_, sample_fs);
  max_ = std::max(max_, sample_fs);
}

void LatencyStats::to_histogram() {
  for (Time t : samples_) histogram_.add(t);
  std::vector<Time>().swap(samples_);  // its memory back
  sorted_ = true;
}

void LatencyStats::require_samples(const char* what) const {
  if (count_ == 0) throw std::logic_error(std::string("LatencyStats::") + what + " with no samples");
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
  const unsigned __int128 n = count_;
  // The quotient is at most max_, so it fits 64 bits.
  const auto whole = static_cast<std::uint64_t>(sum_ / n);
  const auto rem = static_cast<std::uint64_t>(sum_ % n);
  return static_cast<double>(whole) + static_cast<double>(rem) / static_cast<double>(count_);
}

Time LatencyStats::percentile(double p) const {
  if (!(p >= 0.0 && p <= 100.0)) {
    throw std::invalid_argument("percentile " + std::to_string(p) + " is outside [0, 100]");
  }
  require_samples("percentile");
  if (!exact()) return histogram_.percentile(p);
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
  *this = LatencyStats();
}

void LatencyStats::merge(const LatencyStats& o) {
  if (o.exact()) {
    for (Time t : o.samples_) add(t);
    return;
  }
  if (exact()) {
    count_ = kExactSamples + 1;  // past the limit from now on, whatever this held
    to_histogram();
  }
  histogram_.merge(o.histogram_);
  count_ = histogram_.count();
  sum_ = histogram_.sum_fs();
  min_ = histogram_.min();
  max_ = histogram_.max();
}

void LatencyStats::encode(ByteWriter& w) const {
  w.put(static_cast<std::uint8_t>(exact() ? 0 : 1));
  if (!exact()) return histogram_.encode(w);
  w.put(static_cast<std::uint64_t>(samples_.size()));
  for (Time t : samples_) w.put(t);
}

LatencyStats LatencyStats::decode(ByteReader& r) {
  LatencyStats s;
  if (r.get<std::uint8_t>() != 0) {
    s.histogram_ = LatencyHistogram::decode(r);
    s.count_ = s.histogram_.count();
    s.sum_ = s.histogram_.sum_fs();
    if (s.count_ > 0) {
      s.min_ = s.histogram_.min();
      s.max_ = s.histogram_.max();
    }
    return s;
  }
  const auto n = r.get<std::uint64_t>();
  for (std::uint64_t i = 0; i < n; ++i) s.add(r.get<Time>());
  return s;
}

}  // namespace ibfsim
