#include "sim/subnet_manager/routing/routing_tables.h"

#include <algorithm>

namespace ibfsim {

RoutingTables empty_routing_tables(const SubnetGraph& g) {
  RoutingTables t;
  t.lft_top = g.max_lid();
  t.lft.resize(g.nodes.size());
  for (std::size_t n = 0; n < g.nodes.size(); ++n)
    if (g.nodes[n].is_switch()) t.lft[n].assign(static_cast<std::size_t>(t.lft_top) + 1, kNoRoute);
  return t;
}

std::pair<std::uint8_t, std::uint8_t> path_sl_range(const SubnetGraph& g, const RoutingTables& t, SubnetPortRef src,
                                                    Lid dst_lid, Lid src_lid) {
  if (!t.sl) return {0, 0};
  const PathServiceLevels& sl = *t.sl;
  std::uint8_t first = 0;
  if (!sl.by_destination.empty()) {
    first = dst_lid < sl.by_destination.size() ? sl.by_destination[dst_lid] : 0;
  } else if (!sl.by_lid_pair.empty()) {
    if (src_lid == 0) src_lid = g.port(g.lid_port(src)).lids.first;
    if (src_lid < sl.by_lid_pair.size() && dst_lid < sl.by_lid_pair[src_lid].size()) first = sl.by_lid_pair[src_lid][dst_lid];
  } else {
    std::size_t sw = src.node;
    if (!g.nodes[sw].is_switch()) {
      const auto& peer = g.port(src).peer;
      if (!peer || !g.nodes[peer->node].is_switch()) return {0, 0};
      sw = peer->node;
    }
    const auto& row = sl.by_source_switch.at(sw);
    first = dst_lid < row.size() ? row[dst_lid] : 0;
  }
  const unsigned spread = std::max<unsigned>(1, sl.spread[first & 0xF]);
  return {first, static_cast<std::uint8_t>(first + spread - 1)};
}

std::uint8_t path_sl(const SubnetGraph& g, const RoutingTables& t, SubnetPortRef src, Lid dst_lid) {
  const auto [first, last] = path_sl_range(g, t, src, dst_lid);
  if (first == last) return first;
  const Lid src_lid = g.port(g.lid_port(src)).lids.first;
  return static_cast<std::uint8_t>(first + (static_cast<unsigned>(src_lid) + dst_lid) % (last - first + 1u));
}

std::array<std::uint8_t, 16> opensm_default_sl_to_vl(unsigned data_vls) {
  // OpenSM's OperationalVLs code c (1: VL0, 2: VL0-1, 3: VL0-3, 4: VL0-7, 5: VL0-14) masks each
  // VL with 2^(c-1) - 1.
  const unsigned code = data_vls >= 15 ? 5 : data_vls >= 8 ? 4 : data_vls >= 4 ? 3 : data_vls >= 2 ? 2 : 1;
  const unsigned mask = (1u << (code - 1)) - 1;
  std::array<std::uint8_t, 16> t{};
  for (unsigned sl = 0; sl < 16; ++sl) t[sl] = static_cast<std::uint8_t>((sl < 15 ? sl : 7) & mask);
  return t;
}

}  // namespace ibfsim
