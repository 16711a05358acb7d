// Base of every ibfsim SystemC module: it keeps its future actions in its own calendar and holds
// at most one pending sc_event, for the earliest. A module with nothing to do costs nothing: no
// clock, no polling (see design.md, "Time: cycle-accurate, event-driven").
#pragma once
#include <systemc>

#include "sim/core/event_calendar.h"
#include "sim/core/time.h"

namespace ibfsim {

class ScheduledModule : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(ScheduledModule);
  explicit ScheduledModule(const sc_core::sc_module_name& name);

  // Runs handler->on_action(kind, arg, ptr) at time `at` (>= now). Other modules call this to
  // deliver something in the future; nothing here is ever delivered in the same instant.
  void schedule(Time at, ActionHandler* handler, std::uint32_t kind, std::uint64_t arg = 0, void* ptr = nullptr);

  static Time now() { return sc_core::sc_time_stamp().value(); }

  // An exception thrown by an action (a broken invariant) stops the simulation; SystemC would
  // otherwise wrap it in an sc_report. Call after sc_start returns to rethrow it as it was.
  static void rethrow_failure();
  std::size_t pending_actions() const { return calendar_.size(); }
  std::uint64_t actions_run() const { return actions_run_; }

 private:
  void wake();

  EventCalendar calendar_;
  sc_core::sc_event event_;
  Time armed_for_ = kTimeNever;
  std::uint64_t actions_run_ = 0;
};

}  // namespace ibfsim
