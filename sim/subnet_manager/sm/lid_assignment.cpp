#include "sim/subnet_manager/sm/lid_assignment.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.h"

namespace ibfsim {

std::vector<SubnetPortRef> lid_assignment_order(const SubnetGraph& g) {
  std::vector<SubnetPortRef> ports;
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const SubnetNode& node = g.nodes[n];
    if (node.is_switch()) {
      if (SubnetPortRef{n, 0} != g.sm_port) ports.push_back({n, 0});
      continue;
    }
    for (unsigned p = 1; p <= node.num_ports(); ++p)
      if (node.ports[p].peer && SubnetPortRef{n, static_cast<PortNum>(p)} != g.sm_port)
        ports.push_back({n, static_cast<PortNum>(p)});
  }
  std::sort(ports.begin(), ports.end(), [&](SubnetPortRef a, SubnetPortRef b) {
    return guid_table_order(g.port_guid(a)) < guid_table_order(g.port_guid(b));
  });
  ports.insert(ports.begin(), g.sm_port);
  return ports;
}

void assign_lids(SubnetGraph& g, unsigned lmc) {
  if (lmc > kMaxLmc) throw InputError(fmt::format("expected an LMC of 0..{}, got {}", kMaxLmc, lmc));
  for (SubnetNode& n : g.nodes)
    for (SubnetPort& p : n.ports) p.lids = LidRange{};
  g.lmc = lmc;
  unsigned cursor = 1;
  for (SubnetPortRef r : lid_assignment_order(g)) {
    const unsigned size = g.nodes[r.node].is_switch() ? 1u : 1u << lmc;
    const unsigned base = (cursor + size - 1) / size * size;
    if (base + size - 1 > kLidUnicastMax) {
      throw InputError(fmt::format("expected at most {} unicast LIDs, the subnet needs more with LMC {} ({} ports)",
                                   kLidUnicastMax, lmc, lid_assignment_order(g).size()));
    }
    g.port(r).lids = LidRange{static_cast<Lid>(base), static_cast<Lid>(base + size - 1)};
    cursor = base + size;
  }
}

}  // namespace ibfsim
