#include "sim/core/scheduled_module.h"

#include "sim/core/error.h"

#include <exception>

namespace ibfsim {

namespace {
std::exception_ptr g_failure;
}

void ScheduledModule::rethrow_failure() {
  if (g_failure) {
    std::exception_ptr f = g_failure;
    g_failure = nullptr;
    std::rethrow_exception(f);
  }
}

ScheduledModule::ScheduledModule(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
  SC_METHOD(wake);
  sensitive << event_;
  // Runs once at time 0 (no dont_initialize) to arm the event for anything scheduled during
  // elaboration, e.g. link initialisation.
}

void ScheduledModule::schedule(Time at, ActionHandler* handler, std::uint32_t kind, std::uint64_t arg, void* ptr) {
  const Time t = now();
  IBFSIM_CHECK(at >= t, "action scheduled in the past");
  calendar_.push(at, handler, kind, arg, ptr);
  if (!sc_core::sc_is_running()) return;  // the initial wake at time 0 arms the event
  if (at < armed_for_) {
    armed_for_ = at;
    event_.notify(sc_core::sc_time::from_value(at - t));
  }
}

void ScheduledModule::wake() {
  const Time t = now();
  armed_for_ = kTimeNever;
  try {
    while (!calendar_.empty() && calendar_.top().at <= t) {
      Action a = calendar_.pop();
      ++actions_run_;
      a.handler->on_action(a.kind, a.arg, a.ptr);
    }
  } catch (...) {
    if (!g_failure) g_failure = std::current_exception();
    sc_core::sc_stop();
    return;
  }
  if (!calendar_.empty()) {
    armed_for_ = calendar_.top().at;
    event_.notify(sc_core::sc_time::from_value(armed_for_ - t));
  }
}

}  // namespace ibfsim
