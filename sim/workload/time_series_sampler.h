// Samples figures of a running fabric at a fixed interval into a CSV table (scenario key
// outputs.time_series): each sample is an action on the fabric's calendar, scheduled only when a
// time series is asked for, so a run without one has no extra event. Columns are added before
// start(); a "rate" column turns a growing byte count into Gb/s over each interval.
//
// Across MPI ranks every rank samples at the same instants (global events) with the same columns,
// each reading only what its own rank simulates: a rate column the bytes counted on this rank
// (summed over the ranks: byte counts add exactly), a value column the figure of a module on the
// rank named as its owner (other ranks report nothing for it). Samples are kept raw (byte counts,
// the values' bits), so that rank 0's merged table is the one-rank table byte for byte.
#pragma once
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/core/scheduled_module.h"

namespace ibfsim {

class TimeSeriesSampler {
 public:
  static const char* name() { return "time series"; }  // in event traces
  // Samples at first + k x interval (k = 0, 1, ...) while the time is before `end`.
  TimeSeriesSampler(ScheduledModule& clock, Time first, Time interval, Time end)
      : clock_(clock), first_(first), interval_(interval), end_(end) {}

  // `owner`: the rank whose value counts across ranks.
  void add_value(std::string name, std::function<double()> value, unsigned owner = 0) {
    columns_.push_back({std::move(name), std::move(value), {}, false, owner});
  }
  // Gb/s of payload over the interval before each sample (10^9 bits per second).
  void add_rate(std::string name, std::function<std::uint64_t()> bytes) {
    columns_.push_back({std::move(name), {}, std::move(bytes), true, 0});
  }
  std::size_t columns() const { return columns_.size(); }

  void start();
  // Event (event.h): the next row is due.
  void sample_due();

  // This rank's samples as bytes, and every rank's (in rank order) made into this sampler's: rate
  // columns summed, value columns taken from their owner. Throws SimError if the ranks sampled
  // different instants.
  std::vector<std::uint8_t> encode_samples() const;
  void merge_samples(const std::vector<std::vector<std::uint8_t>>& per_rank);

  // time_ns, then one column per figure, in the order added.
  std::string csv() const;
  std::size_t rows() const { return rows_.size(); }
  // When the first and the last sample were taken (0 before any).
  Time first_sample() const { return times_.empty() ? 0 : times_.front(); }
  Time last_sample() const { return times_.empty() ? 0 : times_.back(); }
  const std::vector<std::string>& names() const { return names_; }

 private:
  struct Column {
    std::string name;
    std::function<double()> value;
    std::function<std::uint64_t()> bytes;
    bool rate = false;
    unsigned owner = 0;
  };
  ScheduledModule& clock_;
  Time first_, interval_, end_;
  std::uint64_t k_ = 0;
  std::vector<Column> columns_;
  std::vector<std::string> names_;
  std::vector<std::vector<std::uint64_t>> rows_;  // [sample][column]: a byte count, or a value's bits
  std::vector<Time> times_;
};

}  // namespace ibfsim
