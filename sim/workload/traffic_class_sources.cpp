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
    const double mean_wire = wire_fs(h.hca->port(1), static_cast<std::uint64_t>(std::llround(spec_.sizes.mean())));
    const Time first = window_.start + static_cast<Time>(std::floor(h.arrival_rng.uniform() * h.arrivals.mean_gap(mean_wire)));
    schedule_arrival(i, first);
  }
}

void TrafficClass::schedule_arrival(std::size_t host, Time at) {
  if (at >= window_.measure_end) return;
  hosts_[host]->hca->schedule<&TrafficClass::message_arrives>(at, this, host);
}

void TrafficClass::message_arrives(std::size_t i) {
  Host& h = *hosts_[i];
  const Time t = ScheduledModule::now();
  const std::size_t dst = pattern_.next(i, h.messages++, h.dest_rng);
  const std::uint64_t bytes = spec_.sizes.draw(h.size_rng);
  const bool measured = t >= window_.measure_begin && t < window_.measure_end;
  offer(i, dst, bytes, measured, 0);
  schedule_arrival(i, t + h.arrivals.next_gap(wire_fs(h.hca->port(1), bytes), h.arrival_rng));
}

}  // namespace ibfsim
