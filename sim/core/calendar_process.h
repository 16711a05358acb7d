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
//
// Partitions and windows (docs/architecture.md, "Partitions"). Once a fabric is built, the
// fabric-wide calendar runs in windows: from the earliest pending event m, every event before
// E = m + W runs (W: the shortest latency of any cable, so nothing one module does in the window
// can reach another module before E), partition by partition, each on its own calendar; events
// for another partition wait in an outbox until the barrier at E. Between windows, at the
// barrier, the run's hooks look at the whole fabric (is the run over?), and pause and stop take
// effect. An event scheduled with schedule_global runs in an instant of its own: the window before
// it ends there, and the events of that instant run in key order across every partition. The
// windows, and with them every barrier, depend only on the events and W, never on how many
// partitions there are: so the results are the same with any number of them.
#pragma once
#include <atomic>
#include <exception>
#include <cstdint>
#include <functional>
#include <memory>
#include <vector>
#include <systemc>

#include "sim/core/error.h"
#include "sim/core/event.h"
#include "sim/core/event_calendar.h"
#include "sim/core/partition_workers.h"
#include "sim/core/rank_exchange.h"
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
    if (windowed_) {
      // The common case: an event of the partition running the window, its own calendar's.
      const int dest = destination_of(e);
      if (dest == running_part_) {
        IBFSIM_CHECK(e.at >= current_time_, "event scheduled in the past");
        parts_[static_cast<std::size_t>(dest)].calendar.push_keyed(e, order);
      } else {
        push_across(e, order, dest);
      }
      return;
    }
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
  std::size_t pending() const {
    std::size_t n = calendar_.size() + global_.size();
    for (const auto& p : parts_) n += p.calendar.size();
    return n;
  }
  // Called after every wake, once all actions of that instant have run (waveform sampling). With
  // it set, a wake runs one instant (windows then span several wakes) and there is one partition.
  void set_after_wake(std::function<void()> hook) { after_wake_ = std::move(hook); }

  // --- partitions and windows (above) ---
  // From now on this calendar runs in windows of `window` (> 0), module m's events on partition
  // partition_of_module[m] (< parts; modules past the end of the vector on 0). Events already
  // scheduled move to their partitions. During elaboration, before the simulation runs. The
  // partitions of a window run on `parts` threads (this one and parts - 1 workers: partition_workers.h)
  // unless waveforms sample every instant; end_partition_threads() lets the workers go.
  void set_partitions(std::vector<std::uint32_t> partition_of_module, unsigned parts, Time window);
  void end_partition_threads() { workers_.reset(); }
  unsigned threads() const { return workers_ ? workers_->threads() : 1; }
  bool windowed() const { return windowed_; }
  unsigned partitions() const { return windowed_ ? static_cast<unsigned>(parts_.size()) : 1; }
  Time window() const { return window_; }
  // Windows run so far, and the events of each partition (for the run's figures and benches).
  std::uint64_t windows_run() const { return windows_; }
  std::uint64_t cross_partition_events() const {
    std::uint64_t n = 0;
    for (const auto& p : parts_) n += p.crossings;
    return n;
  }
  // Called at every barrier, in the order added, with every event before the barrier run;
  // `now()` there is the last instant run. How the run looks at the whole fabric between windows.
  void add_barrier_hook(std::function<void()> hook) { barrier_hooks_.push_back(std::move(hook)); }

  // Every event of every calendar is shown to `trace` before it runs (nullptr: none).
  static void set_trace(EventTrace* trace) { trace_ = trace; }
  static bool tracing() { return trace_ != nullptr; }
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
  // resumed with another run_for; a wake does not run ahead past the instant that asked. Asked
  // from inside a partition's window (perhaps on a worker thread), it takes effect at the barrier,
  // on the simulation's thread (SystemC is not called from workers).
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
  // Of those, the ones run in partitions (across MPI ranks, each rank's own; the others, serial and
  // global, run alike on every rank).
  static std::uint64_t partition_events();
  // An exception thrown by an event (a broken invariant) stops the simulation; SystemC would
  // otherwise wrap it in an sc_report. Call after sc_start returns to rethrow it as it was.
  static void rethrow_failure();

 private:
  void wake();
  void push_outside_wake(const Event& e, std::uint64_t order);

  // Partitions. kGlobal: the calendar of global events; kSerial: no partition's window is running
  // (a barrier, a global instant, elaboration).
  static constexpr int kGlobal = -1;
  static constexpr int kSerial = -2;
  // Each on cache lines of its own: the threads running partitions write only theirs.
  struct alignas(64) Partition {
    EventCalendar calendar;
    std::vector<std::pair<Event, std::uint64_t>> outbox;  // for other partitions, and global events
    Time last = 0;      // the last instant it ran in the running window
    bool ran = false;   // whether it ran any in the running window
    std::uint64_t events = 0;
    std::uint64_t crossings = 0;  // events it put in its outbox
  };
  // The calendar an event goes to: the global one, or its module's partition's.
  int destination_of(const Event& e) const {
    if (e.global) return kGlobal;
    return e.module < part_of_.size() ? static_cast<int>(part_of_[e.module]) : 0;
  }
  void push_across(const Event& e, std::uint64_t order, int dest);
  // Straight onto its calendar; dropped if another MPI rank runs that partition (that rank
  // placed the same event itself: every rank runs the serial code alike).
  void place(const Event& e, std::uint64_t order, int dest);
  // Whether this rank runs `dest`'s events (the global calendar: every rank).
  bool owns(int dest) const { return dest < 0 || owned_.holds(static_cast<unsigned>(dest)); }
  // At a barrier with several ranks: the outboxes' events for other ranks go to them as bytes,
  // theirs for this one come in (rank_event_codec.h).
  void exchange_across_ranks(std::vector<std::vector<std::uint8_t>>& to_rank);
  Time earliest();
  void wake_windowed();
  // Runs partition `k`'s events before `end`; with `one_instant`, only those of its first instant.
  void run_partition(std::size_t k, Time end, bool one_instant);
  void run_window();  // every partition's events of the running window, on the threads
  void run_global_instant(Time t);
  // Outboxes onto their calendars, the hooks; returns false when the wake must end there.
  bool barrier();
  bool windowed_ = false;
  std::vector<Partition> parts_;
  EventCalendar global_;
  std::vector<std::uint32_t> part_of_;  // by module
  ranks::Block owned_{0, 1};  // the partitions this rank runs (rank_exchange.h)
  unsigned ranks_ = 1;
  // In a global instant, while a partition's event runs (on its own rank only): what it schedules
  // for another rank's partition goes there at the barrier, like an outbox's event.
  bool partition_event_in_global_instant_ = false;
  std::vector<std::pair<Event, std::uint64_t>> serial_outbox_;
  Time window_ = 0;
  Time window_end_ = 0;       // the running window's events are before it (0: none running)
  bool global_instant_ = false;  // the running window is a global event's instant
  std::uint64_t windows_ = 0;
  std::vector<std::function<void()>> barrier_hooks_;
  std::unique_ptr<PartitionWorkers> workers_;
  std::function<void(std::size_t)> window_job_;
  std::vector<std::size_t> active_;  // the partitions with events in the running window
  static thread_local int running_part_;
  static constexpr unsigned kSeqBits = 40;
  static constexpr std::uint64_t kSeqLimit = std::uint64_t{1} << kSeqBits;
  static constexpr std::uint32_t kModuleLimit = 1u << 23;  // the bits left below kOrdinary
  static std::vector<std::uint64_t> module_seqs_;  // [module]: the next sequence number it gives
  static thread_local std::uint32_t current_module_;  // the module of the running event (0: none)
  bool may_run_ahead(Time kernel_time, Time next) const;

  static thread_local Time current_time_;
  static std::uint64_t events_;  // run outside partitions (and in global instants)
  static std::exception_ptr failure_;
  static Time horizon_;  // end of the running run_for (exclusive, as sc_start's); 0 outside it
  static std::atomic<bool> pause_requested_;
  static std::atomic<bool> pause_at_barrier_;  // pause() from inside a window
  static thread_local bool in_action_;
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
