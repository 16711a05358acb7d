#include "sim/workload/port_window.h"

namespace ibfsim {

PortWindow::PortWindow(Fabric& fabric, Time begin, Time end) : fabric_(fabric), begin_(begin), end_(end) {
  const Topology& t = fabric.topology();
  for (std::size_t n = 0; n < t.nodes.size(); ++n)
    for (unsigned p = 1; p <= t.nodes[n].num_ports; ++p)
      if (fabric.port(n, p).connected()) ports_.emplace_back(n, p);
}

void PortWindow::setup(ScheduledModule& clock) {
  clock.schedule_global<&PortWindow::window_opens>(begin_, this);
  clock.schedule_global<&PortWindow::window_closes>(end_, this);
}

void PortWindow::window_opens() { snapshot(at_begin_); }

void PortWindow::window_closes() { snapshot(at_end_); }

void PortWindow::snapshot(std::vector<Snapshot>& into) {
  const Time now = ScheduledModule::now();
  into.clear();
  for (const auto& [n, p] : ports_) {
    const LinkPort& lp = fabric_.port(n, p);
    Snapshot s;
    s.tx_busy = lp.tx_busy_until(now);
    for (unsigned v = 0; v < lp.op_vls(); ++v) s.stall.push_back(lp.credit_stall_until(static_cast<std::uint8_t>(v), now));
    into.push_back(std::move(s));
  }
  ++taken_;
}

std::optional<double> PortWindow::busy_fraction(std::size_t i) const {
  if (!complete()) return std::nullopt;
  return static_cast<double>(at_end_[i].tx_busy - at_begin_[i].tx_busy) / static_cast<double>(end_ - begin_);
}

std::optional<Time> PortWindow::credit_stall(std::size_t i, std::size_t vl) const {
  if (!complete()) return std::nullopt;
  return at_end_[i].stall[vl] - at_begin_[i].stall[vl];
}

}  // namespace ibfsim
