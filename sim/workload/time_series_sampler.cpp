#include "sim/workload/time_series_sampler.h"

#include <fmt/format.h>

#include <cstring>
#include <iterator>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

std::uint64_t bits_of(double v) {
  std::uint64_t b;
  std::memcpy(&b, &v, sizeof b);
  return b;
}

double value_of(std::uint64_t b) {
  double v;
  std::memcpy(&v, &b, sizeof v);
  return v;
}

}  // namespace

void TimeSeriesSampler::start() {
  names_.clear();
  for (Column& c : columns_) names_.push_back(c.name);
  if (first_ < end_) clock_.schedule_global<&TimeSeriesSampler::sample_due>(first_, this);
}

void TimeSeriesSampler::sample_due() {
  const Time now = first_ + k_ * interval_;
  std::vector<std::uint64_t> row;
  row.reserve(columns_.size());
  for (Column& c : columns_) row.push_back(c.rate ? c.bytes() : bits_of(c.value()));
  rows_.push_back(std::move(row));
  times_.push_back(now);
  ++k_;
  const Time next = first_ + k_ * interval_;  // from the index: no accumulated rounding
  if (next < end_) clock_.schedule_global<&TimeSeriesSampler::sample_due>(next, this);
}

std::vector<std::uint8_t> TimeSeriesSampler::encode_samples() const {
  std::vector<std::uint8_t> out;
  auto put = [&out](std::uint64_t v) {
    for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
  };
  put(rows_.size());
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    put(times_[i]);
    for (std::uint64_t v : rows_[i]) put(v);
  }
  return out;
}

void TimeSeriesSampler::merge_samples(const std::vector<std::vector<std::uint8_t>>& per_rank) {
  const std::size_t width = 8 * (1 + rows_.size() * (1 + columns_.size()));
  for (const auto& bytes : per_rank)
    if (bytes.size() != width) throw SimError("time series: the ranks took different numbers of samples");
  auto get = [](const std::vector<std::uint8_t>& b, std::size_t word) {
    std::uint64_t v = 0;
    for (int i = 0; i < 8; ++i) v |= std::uint64_t{b[8 * word + i]} << (8 * i);
    return v;
  };
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    const std::size_t at = 1 + i * (1 + columns_.size());
    for (const auto& bytes : per_rank)
      if (get(bytes, at) != times_[i]) throw SimError("time series: the ranks sampled at different times");
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      if (columns_[c].rate) {
        std::uint64_t sum = 0;
        for (const auto& bytes : per_rank) sum += get(bytes, at + 1 + c);
        rows_[i][c] = sum;
      } else if (columns_[c].owner < per_rank.size()) {
        rows_[i][c] = get(per_rank[columns_[c].owner], at + 1 + c);
      }
    }
  }
}

std::string TimeSeriesSampler::csv() const {
  std::string out = "time_ns";
  for (const auto& n : names_) out += "," + n;
  out += "\n";
  for (std::size_t i = 0; i < rows_.size(); ++i) {
    fmt::format_to(std::back_inserter(out), "{:.3f}", static_cast<double>(times_[i]) / 1e6);
    for (std::size_t c = 0; c < columns_.size(); ++c) {
      double v;
      if (columns_[c].rate) {
        // The first sample has no interval before it inside the series: it reports 0.
        v = i == 0 ? 0.0 : static_cast<double>(rows_[i][c] - rows_[i - 1][c]) * 8.0 * 1e6 / static_cast<double>(interval_);
      } else {
        v = value_of(rows_[i][c]);
      }
      fmt::format_to(std::back_inserter(out), ",{:.6g}", v);
    }
    out += "\n";
  }
  return out;
}

}  // namespace ibfsim
