#include "sim/subnet_manager/routing/routing_tables.h"

namespace ibfsim {

RoutingTables empty_routing_tables(const SubnetGraph& g) {
  RoutingTables t;
  t.lft_top = g.max_lid();
  t.lft.resize(g.nodes.size());
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    if (g.nodes[n].is_switch()) t.lft[n].assign(static_cast<std::size_t>(t.lft_top) + 1, kNoRoute);
  return t;
}

std::uint8_t path_sl(const SubnetGraph& g, const RoutingTables& t, SubnetPortRef src, Lid dst_lid) {
  if (!t.sl) return 0;
  std::size_t sw = src.node;
  if (!g.nodes[sw].is_switch()) {
    const auto& peer = g.port(src).peer;
    if (!peer || !g.nodes[peer->node].is_switch()) return 0;
    sw = peer->node;
  }
  const auto& row = t.sl->by_source_switch.at(sw);
  return dst_lid < row.size() ? row[dst_lid] : 0;
}

}  // namespace ibfsim
