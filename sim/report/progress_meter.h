// A progress line for long runs on a terminal: simulated time reached (and of how much), wall time
// and an estimate of the wall time left, redrawn in place at most four times a second.
//
// It runs on its own thread and only reads the simulated time the calendar publishes in an atomic
// (CalendarProcess::published_now), so the simulation neither polls nor changes: results are the
// same with or without it. Nothing is shown unless the output is a terminal (isatty), and nothing
// for the first second, so short runs print nothing.
#pragma once
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <mutex>
#include <string>
#include <thread>

#include "sim/core/time.h"

namespace ibfsim {

// "12.5 us of 330 us (3.8%), wall 12 s, about 5 min 3 s left": pure, for the tests. With `end`
// kTimeNever (the subnet manager's bring-up, whose end nobody knows in advance): "bring-up:
// simulated 1.2 ms, wall 5 s".
std::string progress_line(Time begin, Time now, Time end, double wall_seconds);

class ProgressMeter {
 public:
  // Shows progress from `begin` to `end` (simulated) on `out` while alive, if `out` is a terminal
  // (or `force`). `now` is called from the meter's thread: it must be thread-safe.
  ProgressMeter(Time begin, Time end, Time (*now)(), std::FILE* out = stderr, bool force = false);
  ~ProgressMeter();  // stops the thread and clears the line
  ProgressMeter(const ProgressMeter&) = delete;
  ProgressMeter& operator=(const ProgressMeter&) = delete;

  bool active() const { return thread_.joinable(); }

 private:
  void loop();

  Time begin_, end_;
  Time (*now_)();
  std::FILE* out_;
  std::mutex mu_;
  std::condition_variable cv_;
  bool stop_ = false;
  bool drawn_ = false;
  std::thread thread_;
};

}  // namespace ibfsim
