// A progress line for long runs on a terminal: simulated time reached (and of how much), wall time
// and an estimate of the wall time left, redrawn in place at most four times a second. The same
// meter shows any other long step whose text a function gives: the subnet manager's bring-up
// (nodes discovered, SMPs, an estimate of the time left) and the writing of the results.
//
// It runs on its own thread and only reads what the simulation publishes in atomics (the simulated
// time: CalendarProcess::published_now; the bring-up's counts), so the simulation neither polls
// nor changes: results are the same with or without it. Nothing is shown unless the output is a
// terminal (isatty), and nothing for the first second, so short runs print nothing.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <mutex>
#include <string>
#include <thread>

#include "sim/core/time.h"

namespace ibfsim {

// "12.5 us of 330 us (3.8%), wall 12 s, about 5 min 3 s left": pure, for the tests. With `end`
// kTimeNever (the subnet manager's bring-up, whose end nobody knows in advance): "bring-up:
// simulated 1.2 ms, wall 5 s".
std::string progress_line(Time begin, Time now, Time end, double wall_seconds);

// "1 min 5 s", "12 s": wall time for progress lines.
std::string progress_wall_text(double seconds);
// "388.8 us": a simulated time to four significant digits at most.
std::string progress_duration(Time t);
// ", about 30 s left" for `fraction` done in `wall_seconds`, or "" while too little is done to tell.
std::string progress_estimate(double fraction, double wall_seconds);

// How far the subnet manager's first sweep has come, as published for the meter.
struct BringUpProgress {
  std::string phase;                     // "discovery", "lids", "lfts", ... (sweep_phase_name)
  std::size_t nodes_found = 0;           // nodes the sweep has discovered so far
  std::size_t nodes_expected = 0;        // nodes of the topology (what discovery will find)
  std::uint64_t requests = 0;            // SMPs the sweep asked for so far
  std::uint64_t requests_expected = 0;   // an estimate of all it will ask for (0: unknown)
  Time simulated = 0;
};
// "bring-up: discovery, 1,234 of 13,284 nodes found, 5,678 SMPs asked for, simulated 3.2 ms, wall 12 s,
// about 40 s left" (the estimate from the SMPs asked for of those expected).
std::string bring_up_progress_line(const BringUpProgress& p, double wall_seconds);

// "results: writing ports.csv.zst (1 of 9), 12,345 of 69,984 rows, wall 3 s": the index-th file of
// `of` being written and, for a table, the rows written of its rows (`rows_of` 0: a file without
// rows, results.json).
std::string results_progress_line(const std::string& file, unsigned index, unsigned of, std::uint64_t rows,
                                  std::uint64_t rows_of, double wall_seconds);
// 13284 -> "13,284"
std::string progress_count(std::uint64_t n);

class ProgressMeter {
 public:
  // Shows progress from `begin` to `end` (simulated) on `out` while alive, if `out` is a terminal
  // (or `force`). `now` is called from the meter's thread: it must be thread-safe.
  ProgressMeter(Time begin, Time end, Time (*now)(), std::FILE* out = stderr, bool force = false);
  // Shows `line(wall seconds so far)`, called from the meter's thread (it must read only atomics
  // or other thread-safe state).
  explicit ProgressMeter(std::function<std::string(double)> line, std::FILE* out = stderr, bool force = false);
  ~ProgressMeter();  // stops the thread and clears the line
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  bool active() const { return thread_.joinable(); }

 private:
  void loop();

  std::function<std::string(double)> line_;
  std::FILE* out_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace ibfsim
