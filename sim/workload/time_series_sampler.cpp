#include "sim/workload/time_series_sampler.h"

#include <fmt/format.h>

#include <iterator>

namespace ibfsim {

void TimeSeriesSampler::start() {
  names_.clear();
  for (Column& c : columns_) {
    names_.push_back(c.name);
    if (c.rate) c.last_bytes = c.bytes();
  }
  if (first_ < end_) clock_.schedule_global<&TimeSeriesSampler::sample_due>(first_, this);
}

void TimeSeriesSampler::sample_due() {
  const Time now = first_ + k_ * interval_;
  std::vector<double> row;
  row.reserve(columns_.size());
  for (Column& c : columns_) {
    if (c.rate) {
      const std::uint64_t b = c.bytes();
      // The first sample has no interval before it inside the series: it reports 0.
      row.push_back(k_ == 0 ? 0.0 : static_cast<double>(b - c.last_bytes) * 8.0 * 1e6 / static_cast<double>(interval_));
      c.last_bytes = b;
    } else {
      row.push_back(c.value());
    }
  }
  rows_.push_back(std::move(row));
  times_.push_back(now);
  ++k_;
  const Time next = first_ + k_ * interval_;  // from the index: no accumulated rounding
  if (next < end_) clock_.schedule_global<&TimeSeriesSampler::sample_due>(next, this);
}

std::string TimeSeriesSampler::csv() const {
  std::string out = "time_ns";
  for (const auto& n : names_) out += "," + n;
  out += "\n";
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    fmt::format_to(std::back_inserter(out), "{:.3f}", static_cast<double>(times_[i]) / 1e6);
    for (double v : rows_[i]) fmt::format_to(std::back_inserter(out), ",{:.6g}", v);
    out += "\n";
  }
  return out;
}

}  // namespace ibfsim
