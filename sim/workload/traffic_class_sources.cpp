// A traffic class's load-driven sources (traffic_class.h): each sending host draws arrivals from
// its arrival process, starting at a random phase, until the end of the measurement window; each
// message's destination from the pattern and its size from the mix.
#include <cmath>

#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

void TrafficClass::start_sources(const std::vector<std::vector<std::size_t>>& dests) {
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    if (dests[i].empty()) continue;
    Host& h = *hosts_[i];
    // Sources start at a random phase within one mean gap, so that they are not synchronised.
    const double mean_wire = wire_fs(h.node, static_cast<std::uint64_t>(std::llround(spec_.sizes.mean())),
                                     h.ib0 && h.ib0->connected());
    const Time first = window_.start + static_cast<Time>(std::floor(h.arrival_rng.uniform() * h.arrivals.mean_gap(mean_wire)));
    schedule_arrival(i, first);
  }
}

void TrafficClass::schedule_arrival(std::size_t host, Time at) {
  if (at >= window_.measure_end) return;
  hosts_[host]->hca->schedule<&TrafficClass::message_arrives>(at, this, host);
}

void TrafficClass::message_arrives(std::size_t i) { draw_arrival(i, ScheduledModule::now()); }

void TrafficClass::draw_arrival(std::size_t i, Time t) {
  Host& h = *hosts_[i];
  const Time now = ScheduledModule::now();
  for (;;) {
    // ud_send: while messages wait unbuilt the source draws nothing; it goes on from `t` when
    // they are built (ud_send_feed). Each draw uses the host's own streams, in the same order.
    if (!h.unbuilt.empty()) {
      h.paused_arrival = t;
      return;
    }
    const std::size_t dst = pattern_.next(i, h.messages++, h.dest_rng);
    const std::uint64_t bytes = spec_.sizes.draw(h.size_rng);
    const bool measured = t >= window_.measure_begin && t < window_.measure_end;
    offer(i, dst, bytes, measured, 0, t);
    t += h.arrivals.next_gap(wire_fs(h.node, bytes, h.ib0 && h.ib0->connected()), h.arrival_rng);
    if (t >= now) return schedule_arrival(i, t);
    if (t >= window_.measure_end) return;
  }
}

void TrafficClass::settle(Time end) {
  if (!spec_.at_wire()) return;
  for (std::size_t i = 0; i < hosts_.size(); ++i) {
    Host& h = *hosts_[i];
    // (Its unbuilt messages were offered when they arrived and count as waiting as they are.)
    // The arrivals the source would have drawn while it waited, counted without building them.
    for (Time t = h.paused_arrival; t != kTimeNever && t < window_.measure_end && t < end;) {
      pattern_.next(i, h.messages++, h.dest_rng);  // keeps the streams as drawing would
      const std::uint64_t bytes = spec_.sizes.draw(h.size_rng);
      ++offered_messages_;
      if (t >= window_.measure_begin) {
        ++measured_;
        offered_payload_ += bytes;
        offered_wire_fs_ += wire_fs(h.node, bytes, h.ib0 && h.ib0->connected());
      }
      ++settled_waiting_;
      t += h.arrivals.next_gap(wire_fs(h.node, bytes, h.ib0 && h.ib0->connected()), h.arrival_rng);
    }
    h.paused_arrival = kTimeNever;
  }
}

}  // namespace ibfsim
