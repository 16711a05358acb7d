#include "sim/core/calendar_process.h"

#include <algorithm>
#include <exception>

#include "sim/core/error.h"

namespace ibfsim {

namespace {
CalendarMode g_mode = CalendarMode::kFabricWide;
}  // namespace

void set_calendar_mode(CalendarMode mode) { g_mode = mode; }
CalendarMode calendar_mode() { return g_mode; }

std::uint64_t CalendarProcess::events_ = 0;
std::exception_ptr CalendarProcess::failure_;
thread_local Time CalendarProcess::current_time_ = 0;
std::vector<std::uint64_t> CalendarProcess::module_seqs_(1, 0);
thread_local std::uint32_t CalendarProcess::current_module_ = 0;
thread_local bool CalendarProcess::in_action_ = false;
thread_local int CalendarProcess::running_part_ = CalendarProcess::kSerial;
EventTrace* CalendarProcess::trace_ = nullptr;
Time CalendarProcess::horizon_ = 0;
std::atomic<bool> CalendarProcess::pause_requested_{false};
std::atomic<bool> CalendarProcess::pause_at_barrier_{false};
std::atomic<Time> CalendarProcess::published_{0};
std::atomic<bool> CalendarProcess::stop_{false};

CalendarProcess::CalendarProcess(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
  SC_METHOD(wake);
  sensitive << event_;
  // Runs once at time 0 (no dont_initialize) to arm the event for anything scheduled during
  // elaboration, e.g. link initialisation.
}

namespace {
CalendarProcess* g_shared = nullptr;
}  // namespace

CalendarProcess& CalendarProcess::shared() {
  // Lives as long as the simulation context, i.e. the process: never destroyed.
  if (!g_shared) g_shared = new CalendarProcess("fabric_calendar");
  return *g_shared;
}

std::uint64_t CalendarProcess::total_events() {
  std::uint64_t n = events_;
  if (g_shared)
    for (const auto& p : g_shared->parts_) n += p.events;
  return n;
}

std::uint64_t CalendarProcess::partition_events() {
  std::uint64_t n = 0;
  if (g_shared)
    for (const auto& p : g_shared->parts_) n += p.events;
  return n;
}

void CalendarProcess::rethrow_failure() {
  if (failure_) {
    std::exception_ptr f = failure_;
    failure_ = nullptr;
    std::rethrow_exception(f);
  }
}

std::uint32_t CalendarProcess::register_module() {
  IBFSIM_CHECK(module_seqs_.size() < kModuleLimit, "more than 2^23 modules");
  module_seqs_.push_back(0);
  return static_cast<std::uint32_t>(module_seqs_.size() - 1);
}

void CalendarProcess::push_outside_wake(const Event& e, std::uint64_t order) {
  const Time t = sc_core::sc_time_stamp().value();
  const Time at = e.at;
  IBFSIM_CHECK(at >= t, "event scheduled in the past");
  calendar_.push_keyed(e, order);
  // Before the simulation runs, the initial wake at time 0 arms the event; during a wake, the
  // wake arms it once at the end (re-notifying per action would leave a cancelled entry in
  // SystemC's timed queue each time).
  if (waking_ || !sc_core::sc_is_running()) return;
  if (at < armed_for_) {
    armed_for_ = at;
    event_.notify(sc_core::sc_time::from_value(at - t));
  }
}

void CalendarProcess::pause() {
  pause_requested_.store(true, std::memory_order_relaxed);
  // Across MPI ranks every rank must pause at the same barrier: the next one (rank_exchange.h).
  if (running_part_ >= 0 || ranks::several()) pause_at_barrier_.store(true, std::memory_order_relaxed);
  else sc_core::sc_pause();
}

void CalendarProcess::run_for(Time duration) {
  pause_requested_.store(false, std::memory_order_relaxed);
  pause_at_barrier_.store(false, std::memory_order_relaxed);
  horizon_ = sc_core::sc_time_stamp().value() + duration;
  sc_core::sc_start(sc_core::sc_time::from_value(duration));
  horizon_ = 0;
}

Time CalendarProcess::kernel_or_action_time() {
  // A wake that ran later instants itself leaves the kernel behind it when an action stopped the
  // run (sc_stop): the last action's instant is then the current time.
  return std::max<Time>(sc_core::sc_time_stamp().value(), current_time_);
}

// Whether this wake may go on to `next` itself instead of returning to the kernel: only when no
// other SystemC activity could come first and the run (run_for) lasts beyond it. Each instant
// skipped saves a round trip through the kernel's timed queue and scheduler.
bool CalendarProcess::may_run_ahead(Time kernel_time, Time next) const {
  if (next >= horizon_ || after_wake_ || pause_requested_) return false;  // sc_start's end; waveforms sample per instant
  if (sc_core::sc_get_simulator_status() != sc_core::SC_SIM_OK) return false;  // sc_stop
  if (sc_core::sc_pending_activity_at_current_time()) return false;
  return next - kernel_time < sc_core::sc_time_to_pending_activity().value();
}

void CalendarProcess::wake() {
  if (windowed_) return wake_windowed();
  const Time kernel_time = sc_core::sc_time_stamp().value();
  Time t = kernel_time;
  armed_for_ = kTimeNever;
  waking_ = true;
  in_action_ = true;
  try {
    for (;;) {
      current_time_ = t;
      published_.store(t, std::memory_order_relaxed);
      if (stop_.load(std::memory_order_relaxed)) {
        sc_core::sc_stop();
        break;
      }
      // Everything due now runs in this one wake, including actions it schedules for now.
      while (!calendar_.empty() && calendar_.top().at <= t) {
        const Event e = calendar_.pop();
        ++events_;
        if (trace_) trace_->on_event(e);
        current_module_ = e.module;
        e.run();
      }
      if (calendar_.empty() || !may_run_ahead(kernel_time, calendar_.top().at)) break;
      t = calendar_.top().at;
    }
  } catch (...) {
    current_module_ = 0;
    waking_ = false;
    in_action_ = false;
    if (!failure_) failure_ = std::current_exception();
    sc_core::sc_stop();
    return;
  }
  current_module_ = 0;
  waking_ = false;
  in_action_ = false;
  if (after_wake_) after_wake_();
  if (!calendar_.empty()) {
    armed_for_ = calendar_.top().at;
    event_.notify(sc_core::sc_time::from_value(armed_for_ - kernel_time));
  }
}

}  // namespace ibfsim
