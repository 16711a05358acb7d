// The SystemC process behind a calendar of future events (event.h): it holds at most one pending
// sc_event, for the earliest event, and runs every event due when it wakes.
//
// Two layouts (docs/architecture.md, "Time"):
//  * per module: every ScheduledModule owns one, so SystemC's queue holds one event per busy module;
//  * fabric-wide (default): all modules share one, so SystemC holds a single pending event and
//    ordering among events at the same instant is by scheduling order across the whole fabric.
// bench/fabric_bench measures both.
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <systemc>

#include "sim/core/error.h"
#include "sim/core/event.h"
#include "sim/core/event_calendar.h"
#include "sim/core/time.h"

namespace ibfsim {

// Told about every event just before it runs (`ibfsim run --event-trace`).
class EventTrace {
 public:
  virtual ~EventTrace() = default;
  virtual void on_event(const Event& e) = 0;
};

enum class CalendarMode { kFabricWide, kPerModule };

// Chooses the layout for modules created from now on; set it before building a fabric.
void set_calendar_mode(CalendarMode mode);
CalendarMode calendar_mode();

class CalendarProcess : public sc_core::sc_module {
 public:
  SC_HAS_PROCESS(CalendarProcess);
  explicit CalendarProcess(const sc_core::sc_module_name& name);

  // Runs target->*Method(args...) at `at` (>= now); events at the same instant run in scheduling
  // order.
  template <auto Method, class T, class... X>
  void schedule(Time at, T* target, X&&... args) {
    push(make_event<Method>(at, target, std::forward<X>(args)...));
  }
  // The same, before every ordinary event of its instant (EventCalendar::push).
  template <auto Method, class T, class... X>
  void schedule_early(Time at, T* target, X&&... args) {
    push(make_event<Method>(at, target, std::forward<X>(args)...), true);
  }
  void push(const Event& e, bool early = false) {
    if (waking_) {
      // During a wake (nearly every push): the wake arms the SystemC event once when done.
      IBFSIM_CHECK(e.at >= current_time_, "event scheduled in the past");
      calendar_.push(e, early);
    } else {
      push_outside_wake(e, early);
    }
  }
  std::size_t pending() const { return calendar_.size(); }
  // Called after every wake, once all actions of that instant have run (waveform sampling).
  void set_after_wake(std::function<void()> hook) { after_wake_ = std::move(hook); }

  // Every event of every calendar is shown to `trace` before it runs (nullptr: none).
  static void set_trace(EventTrace* trace) { trace_ = trace; }
  // The current simulated time, as of the running wake (cheaper than asking the kernel).
  static Time now() { return current_time_; }
  // Outside actions: the kernel's time, or the last action's if a wake ran ahead of the kernel.
  static Time kernel_or_action_time();
  // sc_start(duration) for simulations driven by calendars. Within it a wake that finds no other
  // SystemC activity due first runs the following instants itself, without a kernel round trip
  // per instant (results are the same; only the kernel's own clock lags inside the wake, which is
  // why modules read ScheduledModule::now(), never sc_time_stamp()). A bare sc_start works too,
  // one instant per wake.
  static void run_for(Time duration);
  // Ends the running sc_start / run_for after the current instant (sc_pause), so that it can be
  // resumed with another run_for; a wake does not run ahead past the instant that asked.
  static void pause();
  // Whether some calendar is running events right now.
  static bool in_action() { return in_action_; }
  // The simulated time the calendars have reached, for a progress display on another thread:
  // stored (relaxed) at every instant a wake runs. Reading it never touches the simulation.
  static Time published_now() { return published_.load(std::memory_order_relaxed); }
  // Asks the running simulation to stop before its next instant (async-signal-safe: a SIGINT
  // handler may call it). The wake that sees it calls sc_stop(); the run then ends as if its time
  // were up, with results for what was simulated so far.
  static void request_stop() { stop_.store(true, std::memory_order_relaxed); }
  static bool stop_requested() { return stop_.load(std::memory_order_relaxed); }
  // The calendar shared by all modules in fabric-wide mode (created on first use).
  static CalendarProcess& shared();
  // Events run by every calendar of this process so far.
  static std::uint64_t total_events();
  // An exception thrown by an event (a broken invariant) stops the simulation; SystemC would
  // otherwise wrap it in an sc_report. Call after sc_start returns to rethrow it as it was.
  static void rethrow_failure();

 private:
  void wake();
  void push_outside_wake(const Event& e, bool early);
  bool may_run_ahead(Time kernel_time, Time next) const;

  static Time current_time_;
  static Time horizon_;  // end of the running run_for (exclusive, as sc_start's); 0 outside it
  static bool pause_requested_;
  static bool in_action_;
  static EventTrace* trace_;
  static std::atomic<Time> published_;
  static std::atomic<bool> stop_;
  EventCalendar calendar_;
  sc_core::sc_event event_;
  Time armed_for_ = kTimeNever;
  bool waking_ = false;  // inside wake(): it arms the event once when done
  std::function<void()> after_wake_;
};

}  // namespace ibfsim
