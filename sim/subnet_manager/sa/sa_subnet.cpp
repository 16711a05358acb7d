#include "sim/subnet_manager/sa/sa_subnet.h"

#include <algorithm>

namespace ibfsim {

std::optional<SubnetPortRef> port_of_lid(const SubnetGraph& g, Lid lid) {
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const SubnetNode& node = g.nodes[n];
    if (node.is_switch()) {
      if (!node.ports.empty() && node.ports[0].lids.contains(lid)) return SubnetPortRef{n, 0};
      continue;
    }
    for (PortNum p = 1; p < node.ports.size(); ++p)
      if (node.ports[p].lids.contains(lid)) return SubnetPortRef{n, p};
  }
  return std::nullopt;
}

std::optional<SubnetPortRef> port_of_guid(const SubnetGraph& g, Guid guid) {
  if (guid == 0) return std::nullopt;
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const SubnetNode& node = g.nodes[n];
    for (PortNum p = node.is_switch() ? 0 : 1; p < node.ports.size(); ++p) {
      if (node.ports[p].guid == guid) return SubnetPortRef{n, p};
      if (node.is_switch()) break;  // only port 0 has a GUID
    }
  }
  return std::nullopt;
}

double port_rate_gbps(const PortInfo& pi) {
  unsigned lanes = 0;
  switch (pi.link_width_active) {
    case IB_LINK_WIDTH_ACTIVE_1X: lanes = 1; break;
    case IB_LINK_WIDTH_ACTIVE_2X: lanes = 2; break;
    case IB_LINK_WIDTH_ACTIVE_4X: lanes = 4; break;
    case IB_LINK_WIDTH_ACTIVE_8X: lanes = 8; break;
    case IB_LINK_WIDTH_ACTIVE_12X: lanes = 12; break;
    default: return 0;
  }
  double lane = 0;
  switch (pi.link_speed_ext_active) {
    case 1: lane = 14; break;
    case 2: lane = 25; break;
    case 4: lane = 50; break;
    case 8: lane = 100; break;
    default:
      switch (pi.link_speed_active) {
        case IB_LINK_SPEED_ACTIVE_2_5: lane = 2.5; break;
        case IB_LINK_SPEED_ACTIVE_5: lane = 5; break;
        case IB_LINK_SPEED_ACTIVE_10: lane = 10; break;
        default: return 0;
      }
  }
  return lanes * lane;
}

std::optional<SaPath> trace_path(const SaSubnet& s, SubnetPortRef src, Lid dlid) {
  const SubnetGraph& g = s.graph;
  SaPath path;
  path.mtu = 0xFF;
  path.rate_gbps = 1e9;
  std::size_t node = src.node;
  // A packet from a switch's own port 0 leaves as its LFT says; from an HCA, by its port.
  PortNum out = g.nodes.at(node).is_switch() ? s.tables.port(node, dlid) : src.port;
  for (unsigned guard = 0; guard <= 64; ++guard) {
    const SubnetNode& n = g.nodes.at(node);
    if (n.is_switch() && n.ports[0].lids.contains(dlid)) {
      if (path.hops == 0) path.mtu = IB_MTU_LEN_4096, path.rate_gbps = 0;  // a switch to itself: no link
      break;
    }
    if (out == kNoRoute || out == 0 || out >= n.ports.size()) return std::nullopt;
    const PortInfo* pi = s.port_info(node, out);
    const auto& peer = n.ports[out].peer;
    if (!pi || !peer) return std::nullopt;
    path.mtu = std::min(path.mtu, pi->neighbor_mtu);
    path.rate_gbps = std::min(path.rate_gbps, port_rate_gbps(*pi));
    ++path.hops;
    node = peer->node;
    const SubnetNode& next = g.nodes.at(node);
    if (!next.is_switch()) {
      if (!next.ports.at(peer->port).lids.contains(dlid)) return std::nullopt;  // an HCA never forwards
      break;
    }
    out = s.tables.port(node, dlid);
    if (guard == 64) return std::nullopt;
  }
  path.sl = path_sl(g, s.tables, src, dlid);
  return path;
}

}  // namespace ibfsim
