// The windowed, partitioned side of CalendarProcess (calendar_process.h, "Partitions and windows").
#include <algorithm>
#include <cstdint>
#include <exception>
#include <vector>

#include "sim/core/calendar_process.h"
#include "sim/core/error.h"
#include "sim/core/partition_slot.h"
#include "sim/core/partition_threads.h"
#include "sim/core/rank_event_codec.h"

namespace ibfsim {

namespace {
// Of the fabric-wide calendar (the only one that runs in windows): partition_threads.h.
unsigned g_partition_threads = 1;
std::uint64_t g_threaded_windows = 0;
}  // namespace

unsigned partition_threads() { return g_partition_threads; }
std::uint64_t threaded_windows() { return g_threaded_windows; }

void CalendarProcess::set_partitions(std::vector<std::uint32_t> partition_of_module, unsigned parts, Time window) {
  IBFSIM_CHECK(!sc_core::sc_is_running() && !waking_, "partitions are set before the simulation runs");
  IBFSIM_CHECK(parts >= 1 && window > 0, "at least one partition and a window");
  IBFSIM_CHECK(parts == 1 || !after_wake_, "one partition while waveforms sample every instant");
  for (std::uint32_t p : partition_of_module) IBFSIM_CHECK(p < parts, "a module's partition exists");
  // Whatever is scheduled already (link training, the first arrivals) moves to its partition.
  std::vector<std::pair<Event, std::uint64_t>> pending;
  auto drain = [&](EventCalendar& c) {
    while (!c.empty()) {
      const Event e = c.pop();
      pending.emplace_back(e, e.order);
    }
  };
  drain(calendar_);
  for (auto& part : parts_) drain(part.calendar);
  drain(global_);
  parts_.clear();
  parts_.resize(parts);
  // Several MPI ranks: each runs a contiguous block of the partitions (rank_exchange.h).
  ranks_ = static_cast<unsigned>(ranks::size());
  IBFSIM_CHECK(parts >= ranks_, "at least one partition per MPI rank");
  owned_ = ranks::partition_block(static_cast<unsigned>(ranks::rank()), parts, ranks_);
  part_of_ = std::move(partition_of_module);
  window_ = window;
  windowed_ = true;
  for (const auto& [e, order] : pending) place(e, order, destination_of(e));
  // One thread per partition (this one among them), created once for the run. An event trace
  // forces one partition; so does sampling every instant (one partition per wake).
  workers_.reset();
  const unsigned mine = owned_.end - owned_.first;
  if (mine > 1) workers_ = std::make_unique<PartitionWorkers>(mine);
  g_partition_threads = mine;
}

void CalendarProcess::place(const Event& e, std::uint64_t order, int dest) {
  if (!owns(dest)) return;
  if (dest == kGlobal) global_.push_keyed(e, order);
  else parts_[static_cast<std::size_t>(dest)].calendar.push_keyed(e, order);
}

void CalendarProcess::push_across(const Event& e, std::uint64_t order, int dest) {
  if (running_part_ == kSerial) {
    // A barrier, a global instant, or outside the simulation: every calendar is ours.
    if (waking_ || in_action_) IBFSIM_CHECK(e.at >= current_time_, "event scheduled in the past");
    if (partition_event_in_global_instant_ && !owns(dest)) serial_outbox_.emplace_back(e, order);
    else place(e, order, dest);
    if (waking_ || !sc_core::sc_is_running()) return;  // the wake arms the event when done
    const Time t = sc_core::sc_time_stamp().value();
    IBFSIM_CHECK(e.at >= t, "event scheduled in the past");
    if (e.at < armed_for_) {
      armed_for_ = e.at;
      event_.notify(sc_core::sc_time::from_value(e.at - t));
    }
    return;
  }
  // From inside a partition's window: nothing may reach another partition, or need the whole
  // fabric stopped, before the window ends (the window is no longer than any cable's latency).
  IBFSIM_CHECK(e.at >= window_end_, "an event for another partition (or a global one) falls inside the running "
                                    "window: something crossed between modules faster than a cable");
  Partition& from = parts_[static_cast<std::size_t>(running_part_)];
  ++from.crossings;
  from.outbox.emplace_back(e, order);
}

Time CalendarProcess::earliest() {
  Time m = global_.empty() ? kTimeNever : global_.top().at;
  for (auto& p : parts_)
    if (!p.calendar.empty()) m = std::min(m, p.calendar.top().at);
  // With several ranks every rank starts the same window: the earliest event of any of them.
  return ranks_ > 1 ? ranks::min_time(m) : m;
}

void CalendarProcess::run_partition(std::size_t k, Time end, bool one_instant) {
  Partition& p = parts_[k];
  // This thread's view of what is running (thread-local), back to serial however this ends.
  struct Running {
    explicit Running(std::size_t k) {
      running_part_ = static_cast<int>(k);
      partition_slot = static_cast<unsigned>(k) + 1;
      in_action_ = true;
    }
    ~Running() {
      current_module_ = 0;
      in_action_ = false;
      running_part_ = kSerial;
      partition_slot = 0;
    }
  } running(k);
  const Time first = p.calendar.empty() ? kTimeNever : p.calendar.top().at;
  while (!p.calendar.empty()) {
    const Time at = p.calendar.top().at;
    if (at >= end || (one_instant && at != first)) break;
    const Event e = p.calendar.pop();
    current_time_ = at;
    current_module_ = e.module;
    ++p.events;
    if (trace_) trace_->on_event(e);
    e.run();
    p.last = at;
    p.ran = true;
  }
}

void CalendarProcess::run_window() {
  // Every partition's events before the window's end, each partition on whichever thread takes
  // it: they share nothing but their outboxes' destinations, read at the barrier. A window is
  // short (one cable's latency), and often only one partition has anything in it: that one runs
  // here, without waking the workers.
  active_.clear();
  for (std::size_t k = 0; k < parts_.size(); ++k) {
    EventCalendar& c = parts_[k].calendar;
    if (!c.empty() && c.top().at < window_end_) active_.push_back(k);
  }
  if (!workers_ || active_.size() <= 1) {
    for (std::size_t k : active_) run_partition(k, window_end_, false);
    return;
  }
  ++g_threaded_windows;
  if (!window_job_) window_job_ = [this](std::size_t i) { run_partition(active_[i], window_end_, false); };
  workers_->run(active_.size(), window_job_);
}

void CalendarProcess::run_global_instant(Time t) {
  // Every event of this instant, of every partition and the global ones, in key order: as on one
  // calendar. Events they schedule for this instant join in by their keys.
  in_action_ = true;
  current_time_ = t;
  for (;;) {
    EventCalendar* next = nullptr;
    std::size_t k_next = parts_.size();
    auto consider = [&](EventCalendar& c, std::size_t k) {
      if (c.empty() || c.top().at != t) return;
      if (!next || c.top().order < next->top().order) {
        next = &c;
        k_next = k;
      }
    };
    consider(global_, parts_.size());
    for (std::size_t k = 0; k < parts_.size(); ++k) consider(parts_[k].calendar, k);
    if (!next) break;
    const Event e = next->pop();
    current_module_ = e.module;
    if (k_next < parts_.size()) {
      ++parts_[k_next].events;
      parts_[k_next].last = t;
      parts_[k_next].ran = true;
    } else {
      ++events_;
    }
    if (trace_) trace_->on_event(e);
    // A global event runs on every rank alike; a partition's only on its own (rank_exchange.h).
    partition_event_in_global_instant_ = ranks_ > 1 && k_next < parts_.size();
    e.run();
    partition_event_in_global_instant_ = false;
  }
  current_module_ = 0;
  in_action_ = false;
}

void CalendarProcess::exchange_across_ranks(std::vector<std::vector<std::uint8_t>>& to_rank) {
  // Each event keeps its key, so the order they arrive in does not matter (as for the outboxes).
  const auto from = ranks::exchange(to_rank);
  for (const auto& bytes : from) {
    ByteReader r(bytes);
    while (!r.done()) {
      const auto [e, order] = decode_rank_event(r);
      place(e, order, destination_of(e));
    }
  }
  for (auto& b : to_rank) b.clear();
}

bool CalendarProcess::barrier() {
  Time last = 0;
  bool ran = false;
  std::vector<std::vector<std::uint8_t>> to_rank(ranks_ > 1 ? ranks_ : 0);
  for (auto& p : parts_) {
    for (const auto& [e, order] : p.outbox) {
      const int dest = destination_of(e);
      if (owns(dest)) {
        // A global event scheduled in a window must reach every rank (none is, yet).
        IBFSIM_CHECK(ranks_ == 1 || dest != kGlobal,
                     std::string("global event ") + e.name() + " scheduled inside a window of a run across MPI ranks");
        place(e, order, dest);
      } else {
        ByteWriter w(to_rank[ranks::rank_of_partition(static_cast<unsigned>(dest), static_cast<unsigned>(parts_.size()), ranks_)]);
        encode_rank_event(e, order, w);
      }
    }
    p.outbox.clear();
    if (p.ran) last = std::max(last, p.last);
    ran = ran || p.ran;
    p.ran = false;
  }
  if (ranks_ > 1) {
    for (const auto& [e, order] : serial_outbox_) {
      const int dest = destination_of(e);
      IBFSIM_CHECK(dest != kGlobal, std::string("global event ") + e.name() + " scheduled by a partition's event");
      ByteWriter w(to_rank[ranks::rank_of_partition(static_cast<unsigned>(dest), static_cast<unsigned>(parts_.size()), ranks_)]);
      encode_rank_event(e, order, w);
    }
    serial_outbox_.clear();
    exchange_across_ranks(to_rank);
    // The barrier's instant is the last any rank ran: one allreduce for both (0: no rank ran).
    const Time last_plus_one = ranks::max_time(ran ? last + 1 : 0);
    ran = last_plus_one > 0;
    last = ran ? last_plus_one - 1 : 0;
  }
  if (global_instant_) last = std::max(last, window_end_ - 1);
  if (ran || global_instant_) current_time_ = last;
  window_end_ = 0;
  global_instant_ = false;
  ++windows_;
  if (ranks_ > 1) release_deferred(current_time_);
  for (auto& hook : barrier_hooks_) hook();
  // A pause asked from inside the window (calendar_process.h, pause()) takes effect here, on
  // every rank if any asked.
  bool pause_now = pause_at_barrier_.exchange(false, std::memory_order_relaxed);
  if (ranks_ > 1) {
    // One allreduce for both: whether any rank asked for a pause, and for a stop.
    std::vector<std::uint64_t> asked{pause_now ? 1u : 0u, stop_.load(std::memory_order_relaxed) ? 1u : 0u};
    ranks::sum(asked);
    pause_now = asked[0] > 0;
    // The rank that asked has it set already; the others learn it here.
    if (pause_now) pause_requested_.store(true, std::memory_order_relaxed);
    if (asked[1] > 0) stop_.store(true, std::memory_order_relaxed);
  }
  if (pause_now) sc_core::sc_pause();
  if (stop_.load(std::memory_order_relaxed)) {
    sc_core::sc_stop();
    return false;
  }
  return sc_core::sc_get_simulator_status() == sc_core::SC_SIM_OK && !pause_requested_;
}

void CalendarProcess::wake_windowed() {
  const Time kernel_time = sc_core::sc_time_stamp().value();
  armed_for_ = kTimeNever;
  waking_ = true;
  const bool per_instant = static_cast<bool>(after_wake_);
  try {
    for (bool first = true;; first = false) {
      if (window_end_ == 0) {
        // A new window, from the earliest event.
        const Time m = earliest();
        if (m == kTimeNever) break;
        if (m > kernel_time && !may_run_ahead(kernel_time, m)) break;
        published_.store(m, std::memory_order_relaxed);
        const bool global = !global_.empty() && global_.top().at == m;
        Time end = global ? m + 1 : m + window_;
        if (!global && !global_.empty()) end = std::min(end, global_.top().at);
        // A bare sc_start (no run_for): one instant per window. Otherwise not past run_for's end,
        // nor past other SystemC activity.
        if (horizon_ == 0) end = m + 1;
        else end = std::min(end, horizon_);
        if (sc_core::sc_pending_activity_at_current_time()) end = m + 1;
        else end = std::min(end, std::max<Time>(m + 1, kernel_time + sc_core::sc_time_to_pending_activity().value()));
        window_end_ = std::max(end, m + 1);
        global_instant_ = global;
      } else if (!first) {
        break;
      }
      if (global_instant_) {
        run_global_instant(window_end_ - 1);
      } else if (per_instant) {
        // One instant of the window per wake (waveforms sample after each): one partition.
        run_partition(0, window_end_, true);
        const bool more = !parts_[0].calendar.empty() && parts_[0].calendar.top().at < window_end_;
        if (more) break;
      } else {
        run_window();
      }
      if (!barrier()) break;
      if (per_instant) break;
    }
  } catch (...) {
    current_module_ = 0;
    in_action_ = false;
    partition_event_in_global_instant_ = false;
    running_part_ = kSerial;
    waking_ = false;
    window_end_ = 0;
    if (!failure_) failure_ = std::current_exception();
    sc_core::sc_stop();
    return;
  }
  waking_ = false;
  if (after_wake_) after_wake_();
  const Time next = window_end_ != 0 ? parts_[0].calendar.top().at : earliest();
  if (next != kTimeNever && sc_core::sc_get_simulator_status() == sc_core::SC_SIM_OK) {
    armed_for_ = next;
    event_.notify(sc_core::sc_time::from_value(next - kernel_time));
  }
}

}  // namespace ibfsim
