// Per-port and per-VL figures over the measurement window only: each connected port's transmit
// utilization and each data VL's credit-stall time between measure_begin and measure_end. Two
// snapshots, one action at each end of the window (no polling); the packet a port is sending at
// a snapshot counts up to the snapshot only.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/event_calendar.h"
#include "sim/fabric/fabric.h"

namespace ibfsim {

class PortWindow {
 public:
  static const char* name() { return "port window"; }  // in event traces
  PortWindow(Fabric& fabric, Time begin, Time end);
  // Schedules the two snapshots; call during elaboration.
  void setup(ScheduledModule& clock);
  // Whether both snapshots were taken (a run stopped early has only the first, or none).
  bool complete() const { return taken_ == 2; }
  Time window() const { return end_ - begin_; }
  // The connected ports, in order (node, then port), as (node, port).
  const std::vector<std::pair<std::size_t, unsigned>>& ports() const { return ports_; }
  // The figures of ports()[i]: its transmitter's busy time in the window / the window, and each
  // data VL's credit stall time in the window. Nothing unless complete().
  std::optional<double> busy_fraction(std::size_t i) const;
  std::size_t vls(std::size_t i) const { return complete() ? at_end_[i].stall.size() : 0; }
  std::optional<Time> credit_stall(std::size_t i, std::size_t vl) const;

  // Events (event.h): the window opens and closes; each takes a snapshot of every port.
  void window_opens();
  void window_closes();

 private:
  struct Snapshot {
    Time tx_busy = 0;
    std::vector<Time> stall;
  };
  Fabric& fabric_;
  Time begin_, end_;
  std::vector<std::pair<std::size_t, unsigned>> ports_;
  void snapshot(std::vector<Snapshot>& into);
  std::vector<Snapshot> at_begin_, at_end_;
  int taken_ = 0;
};

}  // namespace ibfsim
