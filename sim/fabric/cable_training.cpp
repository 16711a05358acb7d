#include "sim/fabric/cable_training.h"

#include <algorithm>

namespace ibfsim {

TrainingResult train_cable(const Topology& topo, std::size_t cable) {
  const TopoCable& c = topo.cables.at(cable);
  auto caps = [&](std::size_t node, unsigned p) {
    PortLinkCaps pc;
    pc.speeds = 0;
    for (unsigned sp = 0; sp <= static_cast<unsigned>(c.rate.speed); ++sp)
      pc.speeds |= topo.nodes[node].enabled_speeds(p) & speed_bit(static_cast<LinkSpeed>(sp));
    pc.widths = 0;
    for (unsigned lanes : {1u, 2u, 4u, 8u, 12u})
      if (lanes <= c.rate.lanes) pc.widths |= topo.nodes[node].enabled_widths(p) & width_bit(lanes);
    return pc;
  };
  return train_link(caps(c.node_a, c.port_a), caps(c.node_b, c.port_b), LaneChannel{c.failed_lanes, c.lanes_reversed});
}

Time all_links_up_at(const Topology& topo, bool training_delay) {
  if (!training_delay) return 0;
  Time t = 0;
  for (std::size_t k = 0; k < topo.cables.size(); ++k) {
    const TrainingResult r = train_cable(topo, k);
    if (r.up) t = std::max(t, r.duration);
  }
  return t;
}

}  // namespace ibfsim
