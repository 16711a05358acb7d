#include "sim/core/calendar_process.h"

#include <exception>

#include "sim/core/error.h"

namespace ibfsim {

namespace {
CalendarMode g_mode = CalendarMode::kFabricWide;
std::uint64_t g_actions = 0;
std::exception_ptr g_failure;
}  // namespace

void set_calendar_mode(CalendarMode mode) { g_mode = mode; }
CalendarMode calendar_mode() { return g_mode; }

Time CalendarProcess::current_time_ = 0;
bool CalendarProcess::in_action_ = false;

CalendarProcess::CalendarProcess(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
  SC_METHOD(wake);
  sensitive << event_;
  // Runs once at time 0 (no dont_initialize) to arm the event for anything scheduled during
  // elaboration, e.g. link initialisation.
}

CalendarProcess& CalendarProcess::shared() {
  // Lives as long as the simulation context, i.e. the process: never destroyed.
  static CalendarProcess* c = new CalendarProcess("fabric_calendar");
  return *c;
}

std::uint64_t CalendarProcess::total_actions() { return g_actions; }

void CalendarProcess::rethrow_failure() {
  if (g_failure) {
    std::exception_ptr f = g_failure;
    g_failure = nullptr;
    std::rethrow_exception(f);
  }
}

void CalendarProcess::schedule(Time at, ActionHandler* handler, std::uint32_t kind, std::uint64_t arg, void* ptr) {
  const Time t = waking_ ? current_time_ : sc_core::sc_time_stamp().value();
  IBFSIM_CHECK(at >= t, "action scheduled in the past");
  calendar_.push(at, handler, kind, arg, ptr);
  // Before the simulation runs, the initial wake at time 0 arms the event; during a wake, the
  // wake arms it once at the end (re-notifying per action would leave a cancelled entry in
  // SystemC's timed queue each time).
  if (waking_ || !sc_core::sc_is_running()) return;
  if (at < armed_for_) {
    armed_for_ = at;
    event_.notify(sc_core::sc_time::from_value(at - t));
  }
}

void CalendarProcess::wake() {
  const Time t = sc_core::sc_time_stamp().value();
  current_time_ = t;
  armed_for_ = kTimeNever;
  waking_ = true;
  in_action_ = true;
  try {
    // Everything due now runs in this one wake, including actions it schedules for now.
    while (!calendar_.empty() && calendar_.top().at <= t) {
      Action a = calendar_.pop();
      ++g_actions;
      a.handler->on_action(a.kind, a.arg, a.ptr);
    }
  } catch (...) {
    waking_ = false;
    in_action_ = false;
    if (!g_failure) g_failure = std::current_exception();
    sc_core::sc_stop();
    return;
  }
  waking_ = false;
  in_action_ = false;
  if (after_wake_) after_wake_();
  if (!calendar_.empty()) {
    armed_for_ = calendar_.top().at;
    event_.notify(sc_core::sc_time::from_value(armed_for_ - t));
  }
}

}  // namespace ibfsim
