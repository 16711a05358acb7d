// The SystemC process behind a calendar of future events (event.h): it holds at most one pending
// sc_event, for the earliest event, and runs every event due when it wakes.
//
// Two layouts (docs/architecture.md, "Time"):
//  * per module: every ScheduledModule owns one, so SystemC's queue holds one event per busy module;
//  * fabric-wide (default): all modules share one, so SystemC holds a single pending event.
// bench/fabric_bench measures both.
//
// Order. Events at the same instant run in an order the model owns, never in the order some
// global counter happened to see them: by (early first, origin module, that module's sequence).
// The origin is the module whose event was running when the event was scheduled (0 outside any
// event: elaboration and set-up); each module numbers what it schedules. A module runs the same
// events in the same order however the fabric is split among calendars, so it schedules the same
// events with the same keys, and the order of every instant is the same with any number of
// partitions (docs/architecture.md, "Time").
#pragma once
#include <atomic>
#include <cstdint>
#include <functional>
#include <vector>
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
    std::uint64_t& seq = module_seqs_[current_module_];
    IBFSIM_CHECK(seq < kSeqLimit, "a module scheduled more than 2^40 events");
    const std::uint64_t order = (early ? 0 : EventCalendar::kOrdinary) | (std::uint64_t{current_module_} << kSeqBits) | seq++;
    if (waking_) {
      // During a wake (nearly every push): the wake arms the SystemC event once when done.
      IBFSIM_CHECK(e.at >= current_time_, "event scheduled in the past");
      calendar_.push_keyed(e, order);
    } else {
      push_outside_wake(e, order);
    }
  }
  // A new module's number, the origin of what its events schedule (ScheduledModule).
  static std::uint32_t register_module();
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
  void push_outside_wake(const Event& e, std::uint64_t order);
  static constexpr unsigned kSeqBits = 40;
  static constexpr std::uint64_t kSeqLimit = std::uint64_t{1} << kSeqBits;
  static constexpr std::uint32_t kModuleLimit = 1u << 23;  // the bits left below kOrdinary
  static std::vector<std::uint64_t> module_seqs_;  // [module]: the next sequence number it gives
  static std::uint32_t current_module_;            // the module of the running event (0: none)
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
