// Base of every ibfsim SystemC module (switch, HCA): it schedules its future actions on a
// calendar (its own or the fabric-wide one, see calendar_process.h) and is woken only for them.
// A module with nothing to do costs nothing: no clock, no polling (docs/architecture.md, "Time").
#pragma once
#include <memory>
#include <systemc>

#include "sim/core/calendar_process.h"
#include "sim/core/event_calendar.h"
#include "sim/core/time.h"

namespace ibfsim {

class ScheduledModule : public sc_core::sc_module {
 public:
  explicit ScheduledModule(const sc_core::sc_module_name& name);

  // Runs target->*Method(args...) at time `at` (>= now), on this module's calendar: a module
  // schedules its own events, and a wire schedules the events of the module at its far end there
  // (event.h); events at the same instant run in the order of their keys (calendar_process.h, "Order").
  template <auto Method, class T, class... X>
  void schedule(Time at, T* target, X&&... args) {
    Event e = make_event<Method>(at, target, std::forward<X>(args)...);
    e.module = id_;
    calendar_->push(e);
  }
  template <auto Method, class T, class... X>
  void schedule_early(Time at, T* target, X&&... args) {
    Event e = make_event<Method>(at, target, std::forward<X>(args)...);
    e.module = id_;
    calendar_->push(e, true);
  }
  // An event that reads or changes more than this module (link bring-up and faults, samplers, the
  // run's checks): in a partitioned run it runs with every partition stopped at its instant
  // (calendar_process.h, "Partitions"); the module is still its origin. It must be scheduled at
  // least a window ahead unless the scheduler is itself global or outside the simulation.
  template <auto Method, class T, class... X>
  void schedule_global(Time at, T* target, X&&... args) {
    Event e = make_event<Method>(at, target, std::forward<X>(args)...);
    e.module = id_;
    e.global = true;
    calendar_->push(e);
  }
  // The module's number: the origin of the events its events schedule (calendar_process.h, "Order").
  std::uint32_t id() const { return id_; }
  CalendarProcess& calendar() { return *calendar_; }

  // Inside an action this is the instant it runs; outside (elaboration, after the run) the kernel's.
  static Time now() { return CalendarProcess::in_action() ? CalendarProcess::now() : CalendarProcess::kernel_or_action_time(); }
  static void rethrow_failure() { CalendarProcess::rethrow_failure(); }

 private:
  std::unique_ptr<CalendarProcess> own_calendar_;  // per-module mode only
  CalendarProcess* calendar_;
  std::uint32_t id_ = CalendarProcess::register_module();
};

}  // namespace ibfsim
