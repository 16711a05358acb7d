#include "sim/core/scheduled_module.h"

#include "sim/core/error.h"

namespace ibfsim {

ScheduledModule::ScheduledModule(const sc_core::sc_module_name& name) : sc_core::sc_module(name) {
  SC_METHOD(wake);
  sensitive << event_;
  dont_initialize();
}

void ScheduledModule::schedule(Time at, ActionHandler* handler, std::uint32_t kind, std::uint64_t arg, void* ptr) {
  const Time t = now();
  IBFSIM_CHECK(at >= t, "action scheduled in the past");
  calendar_.push(at, handler, kind, arg, ptr);
  if (at < armed_for_) {
    armed_for_ = at;
    event_.notify(sc_core::sc_time::from_value(at - t));
  }
}

void ScheduledModule::wake() {
  const Time t = now();
  armed_for_ = kTimeNever;
  while (!calendar_.empty() && calendar_.top().at <= t) {
    Action a = calendar_.pop();
    ++actions_run_;
    a.handler->on_action(a.kind, a.arg, a.ptr);
  }
  if (!calendar_.empty()) {
    armed_for_ = calendar_.top().at;
    event_.notify(sc_core::sc_time::from_value(armed_for_ - t));
  }
}

}  // namespace ibfsim
