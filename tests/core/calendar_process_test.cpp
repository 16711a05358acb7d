// CalendarProcess::run_for lets one wake run several instants without the kernel. These tests pin
// down that this changes nothing anyone can observe: which actions run, at which time, in which
// order relative to other SystemC processes, and where a run stopped by sc_stop ends.
#include <catch2/catch.hpp>

#include <systemc>
#include <utility>
#include <vector>

#include "sim/core/calendar_process.h"
#include "sim/core/scheduled_module.h"
#include "sim/core/time.h"

using namespace ibfsim;

namespace {

// Records (time, tag) of every event; an event with tag 99 stops the simulation.
struct Recorder {
  std::vector<std::pair<Time, std::uint64_t>> seen;
  void record(std::uint64_t tag) {
    seen.emplace_back(ScheduledModule::now(), tag);
    if (tag == 99) sc_core::sc_stop();
  }
};

// A plain SystemC process with its own timed event: a wake must never run past it.
struct Ticker : sc_core::sc_module {
  SC_HAS_PROCESS(Ticker);
  explicit Ticker(const sc_core::sc_module_name& n, Recorder& r) : sc_core::sc_module(n), rec(r) {
    SC_METHOD(tick);
    sensitive << ev;
    dont_initialize();
  }
  void tick() { rec.seen.emplace_back(sc_core::sc_time_stamp().value(), 1000); }
  sc_core::sc_event ev;
  Recorder& rec;
};

}  // namespace

TEST_CASE("run_for runs every action before its end and none at or after it, in time order",
          "[core][calendar]") {
  init_time_resolution();
  Recorder rec;
  CalendarProcess& cal = CalendarProcess::shared();
  // sc_start(d) leaves an event at exactly now + d for the next run: so must run_for.
  for (Time t : {Time{5}, Time{3}, Time{3}, Time{100}, Time{7}}) cal.schedule<&Recorder::record>(t, &rec, t);
  CalendarProcess::run_for(100);
  CHECK(rec.seen == std::vector<std::pair<Time, std::uint64_t>>{{3, 3}, {3, 3}, {5, 5}, {7, 7}});
  CHECK(sc_core::sc_time_stamp().value() == 100);
  CalendarProcess::run_for(1);
  REQUIRE(rec.seen.size() == 5);
  CHECK(rec.seen.back() == std::pair<Time, std::uint64_t>{100, 100});
}

TEST_CASE("a wake running ahead stops before another SystemC process's event and resumes after it",
          "[core][calendar]") {
  init_time_resolution();
  Recorder rec;
  Ticker ticker("ticker", rec);
  CalendarProcess& cal = CalendarProcess::shared();
  for (Time t : {Time{10}, Time{20}, Time{30}, Time{40}}) cal.schedule<&Recorder::record>(t, &rec, t);
  sc_core::sc_start(sc_core::SC_ZERO_TIME);
  ticker.ev.notify(sc_core::sc_time::from_value(25));
  CalendarProcess::run_for(1000);
  CHECK(rec.seen == std::vector<std::pair<Time, std::uint64_t>>{{10, 10}, {20, 20}, {25, 1000}, {30, 30}, {40, 40}});
}

TEST_CASE("sc_stop inside a wake that ran ahead ends the run at that action's time", "[core][calendar]") {
  init_time_resolution();
  Recorder rec;
  CalendarProcess& cal = CalendarProcess::shared();
  cal.schedule<&Recorder::record>(10, &rec, 1);
  cal.schedule<&Recorder::record>(20, &rec, 99);  // stops
  cal.schedule<&Recorder::record>(30, &rec, 3);   // must not run
  CalendarProcess::run_for(1000);
  CHECK(rec.seen == std::vector<std::pair<Time, std::uint64_t>>{{10, 1}, {20, 99}});
  // The kernel stopped at the wake's start (10); the simulated time is the stopping action's.
  CHECK(ScheduledModule::now() == 20);
}
