// Bringing cables up and down: a cable's two ports stay Down while it trains (TS1/TS2 exchange,
// link_training.h) and enter their logical state when training is over, at an event at that time;
// a fault takes both ends Down at once, and a later "up" retrains the cable from that time.
//
// Without a subnet manager the ports go straight to Active when training ends (as LinkPort::link_up
// is told); each cable does so at its own time, so in a fabric of mixed speeds a packet may reach a
// switch whose output is still training and be discarded there (counted, like any output that is
// not Active). With training_delay off every cable that trains comes up at time 0 instead.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/core/scheduled_module.h"
#include "sim/link/link_port.h"
#include "sim/phy/link_training.h"

namespace ibfsim {

class LinkBringUp {
 public:
  static const char* name() { return "cables"; }  // in event traces
  // Events go on `scheduler`'s calendar. `training_delay`: training takes its simulated time.
  LinkBringUp(ScheduledModule& scheduler, bool training_delay, PortState up_state = PortState::kActive);

  // Cable k (in the order added) joins ports a and b and trained as `t` (t.up false: it never comes up).
  void add_cable(LinkPort& a, LinkPort& b, const TrainingResult& t);
  // Starts every cable's training at time 0. Call once, during elaboration, after add_cable.
  void start();
  // At `at`, cable k goes down (up = false) or, if it is down and not training, starts training.
  void schedule_fault(Time at, std::size_t cable, bool up);

  // When cable k entered its logical state after training, each time (the first is the initial
  // training), and when faults took it down.
  const std::vector<Time>& up_times(std::size_t k) const { return cables_.at(k).up_times; }
  const std::vector<Time>& down_times(std::size_t k) const { return cables_.at(k).down_times; }
  bool training(std::size_t k) const { return cables_.at(k).training; }

  // --- events (event.h) ---
  // Training of cable `cable` that started in `generation` is over (stale if a fault cut it short).
  void training_done(std::size_t cable, std::uint32_t generation);
  void fault_down(std::size_t cable);
  void fault_up(std::size_t cable);

 private:
  struct Cable {
    LinkPort* a;
    LinkPort* b;
    TrainingResult result;
    bool training = false;
    std::uint32_t generation = 0;  // bumps when a fault cuts a training short
    std::vector<Time> up_times, down_times;
  };
  void begin_training(std::size_t k, Time now);
  void come_up(std::size_t k, Time now);

  ScheduledModule& scheduler_;
  bool training_delay_;
  PortState up_state_;
  std::vector<Cable> cables_;
};

}  // namespace ibfsim
