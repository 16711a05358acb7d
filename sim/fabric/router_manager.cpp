#include "sim/fabric/router_manager.h"

#include <deque>
#include <limits>

#include "sim/network/grh.h"

namespace ibfsim {

namespace {

constexpr unsigned kFar = std::numeric_limits<unsigned>::max();

// [subnet][subnet]: routers crossed between them (0 within one), kFar if none joins them.
std::vector<std::vector<unsigned>> subnet_distances(const Topology& topo, const TopologySubnets& s) {
  const std::size_t n = s.count();
  std::vector<std::vector<std::size_t>> adj(n);
  for (std::size_t r : topo.routers())
    for (unsigned p = 1; p <= topo.nodes[r].num_ports; ++p)
      for (unsigned q = 1; q <= topo.nodes[r].num_ports; ++q) {
        const int a = s.of(r, p), b = s.of(r, q);
        if (a != kNoSubnet && b != kNoSubnet && a != b) adj[static_cast<std::size_t>(a)].push_back(static_cast<std::size_t>(b));
      }
  std::vector<std::vector<unsigned>> d(n, std::vector<unsigned>(n, kFar));
  for (std::size_t t = 0; t < n; ++t) {
    d[t][t] = 0;
    std::deque<std::size_t> q{t};
    while (!q.empty()) {
      const std::size_t u = q.front();
      q.pop_front();
      for (std::size_t v : adj[u])
        if (d[t][v] == kFar) {
          d[t][v] = d[t][u] + 1;
          q.push_back(v);
        }
    }
  }
  return d;
}

// The base LID of an end port (an HCA or router port, or a switch's port 0), as its SM set it.
Lid live_lid(Fabric& f, std::size_t node, unsigned port) {
  if (Hca* h = f.hca(node)) return h->lid(static_cast<PortNum>(port));
  if (Router* r = f.router(node)) return r->port_lid(static_cast<PortNum>(port));
  return f.switch_at(node)->lid();
}

// The router port of subnet `s` a packet for subnet `t` enters first: (router node, its port in
// s), the router nearest t, lowest node index on ties.
std::optional<std::pair<std::size_t, unsigned>> first_router(const Topology& topo, const TopologySubnets& sub,
                                                            const std::vector<std::vector<unsigned>>& d, int s, int t) {
  std::optional<std::pair<std::size_t, unsigned>> best;
  unsigned best_d = kFar;
  for (std::size_t r : topo.routers()) {
    unsigned in_s = 0, nearest = kFar;
    for (unsigned p = 1; p <= topo.nodes[r].num_ports; ++p) {
      const int sp = sub.of(r, p);
      if (sp == kNoSubnet) continue;
      if (sp == s && in_s == 0) in_s = p;
      if (sp != s) nearest = std::min(nearest, d[static_cast<std::size_t>(t)][static_cast<std::size_t>(sp)]);
    }
    if (in_s != 0 && nearest < best_d) {
      best_d = nearest;
      best = std::make_pair(r, in_s);
    }
  }
  return best;
}

}  // namespace

void program_routers(Fabric& f) {
  const Topology& topo = f.topology();
  const TopologySubnets& sub = f.subnets();
  const auto d = subnet_distances(topo, sub);
  for (std::size_t r : topo.routers()) {
    GrhForwarding& fw = f.router(r)->forwarding();
    const TopoNode& rn = topo.nodes[r];
    // The end ports of each port's subnet, by port GUID.
    for (unsigned p = 1; p <= rn.num_ports; ++p) {
      const int s = sub.of(r, p);
      if (s == kNoSubnet) continue;
      for (std::size_t node : sub.nodes[static_cast<std::size_t>(s)]) {
        const TopoNode& nd = topo.nodes[node];
        if (nd.type == NodeType::kSwitch) {
          fw.set_host(static_cast<PortNum>(p), port_guid_of(nd, 0), live_lid(f, node, 0));
          continue;
        }
        for (unsigned q = 1; q <= nd.num_ports; ++q)
          if (sub.of(node, q) == s) fw.set_host(static_cast<PortNum>(p), port_guid_of(nd, q), live_lid(f, node, q));
      }
    }
    // A route to every subnet it can reach.
    for (std::size_t t = 0; t < sub.count(); ++t) {
      unsigned best_port = 0, best_d = kFar;
      for (unsigned p = 1; p <= rn.num_ports; ++p) {
        const int s = sub.of(r, p);
        if (s == kNoSubnet) continue;
        const unsigned dist = d[t][static_cast<std::size_t>(s)];
        if (dist < best_d) {
          best_d = dist;
          best_port = p;
        }
      }
      if (best_port == 0) continue;
      GrhRoute route{static_cast<PortNum>(best_port), 0};
      if (best_d > 0) {
        const auto next = first_router(topo, sub, d, sub.of(r, best_port), static_cast<int>(t));
        if (!next) continue;
        route.next_hop = live_lid(f, next->first, next->second);
      }
      fw.set_route(sub.prefix[t], route);
    }
  }
}

std::optional<verbs::ibv_ah_attr> address_vector(Fabric& f, std::size_t src, std::size_t dst, std::uint8_t sl,
                                          std::uint8_t hop_limit) {
  const Topology& topo = f.topology();
  const TopologySubnets& sub = f.subnets();
  verbs::ibv_ah_attr ah;
  ah.sl = sl;
  ah.port_num = 1;
  const int s = sub.of(src, 1), t = sub.of(dst, 1);
  if (s == t) {
    ah.dlid = f.hca(dst)->lid(1);
    return ah;
  }
  if (s == kNoSubnet || t == kNoSubnet) return std::nullopt;
  const auto d = subnet_distances(topo, sub);
  const auto first = first_router(topo, sub, d, s, t);
  if (!first) return std::nullopt;
  ah.dlid = live_lid(f, first->first, first->second);
  ah.is_global = true;
  ah.grh.hop_lmt = hop_limit;
  ah.grh.dgid = make_gid(sub.prefix[static_cast<std::size_t>(t)], port_guid_of(topo.nodes[dst], 1));
  return ah;
}

}  // namespace ibfsim
