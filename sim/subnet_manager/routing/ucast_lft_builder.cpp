#include "sim/subnet_manager/routing/ucast_lft_builder.h"

#include <algorithm>
#include <limits>
#include <unordered_set>

namespace ibfsim {

namespace {

// How many of one destination's LIDs went through a neighbour (node, and for dor the port) of S.
struct RemoteUse {
  std::size_t node;
  PortNum port;
  std::uint32_t lids;
};

bool is_hca_port(const SubnetGraph& g, SubnetPortRef r) { return !g.nodes[r.node].is_switch(); }

// The switch an HCA port is cabled to, kNoSubnetNode if none.
std::size_t attached_switch(const SubnetGraph& g, SubnetPortRef r) {
  const auto& peer = g.port(r).peer;
  return peer && g.nodes[peer->node].is_switch() ? peer->node : kNoSubnetNode;
}

constexpr std::uint32_t kMax = std::numeric_limits<std::uint32_t>::max();

}  // namespace

std::vector<SubnetPortRef> ucast_destination_order(const SubnetGraph& g, const SwitchIndex& sw) {
  std::vector<std::size_t> by_load(sw.node);  // already in switch GUID table order
  auto hca_links = [&](std::size_t node) {
    unsigned k = 0;
    for (const SubnetPort& p : g.nodes[node].ports)
      if (p.peer && !g.nodes[p.peer->node].is_switch()) ++k;
    return k;
  };
  std::vector<unsigned> load(g.nodes.size(), 0);
  for (std::size_t n : by_load) load[n] = hca_links(n);
  std::stable_sort(by_load.begin(), by_load.end(), [&](std::size_t a, std::size_t b) { return load[a] > load[b]; });

  std::vector<SubnetPortRef> order;
  std::unordered_set<Guid> seen;
  for (std::size_t s : by_load) {
    const SubnetNode& node = g.nodes[s];
    for (unsigned p = 1; p <= node.num_ports(); ++p) {
      const auto& peer = node.ports[p].peer;
      if (!peer || g.nodes[peer->node].is_switch()) continue;
      if (seen.insert(g.port_guid(*peer)).second) order.push_back(*peer);
    }
  }
  std::vector<SubnetPortRef> rest;
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    const SubnetNode& node = g.nodes[n];
    for (unsigned p = 0; p <= node.num_ports(); ++p) {
      const SubnetPortRef r{n, static_cast<PortNum>(p)};
      if (node.ports[p].lids.assigned() && !seen.count(g.port_guid(r))) rest.push_back(r);
    }
  }
  std::sort(rest.begin(), rest.end(), [&](SubnetPortRef a, SubnetPortRef b) {
    return guid_table_order(g.port_guid(a)) < guid_table_order(g.port_guid(b));
  });
  order.insert(order.end(), rest.begin(), rest.end());
  return order;
}

RoutingTables build_ucast_lfts(const SubnetGraph& g, const SwitchIndex& sw, const HopMatrix& hops, bool dor) {
  RoutingTables out = empty_routing_tables(g);
  const std::vector<SubnetPortRef> order = ucast_destination_order(g, sw);
  const unsigned lids_per_port = 1u << g.lmc;
  const bool for_lmc = lids_per_port > 1;

  // The destination switch (switch number) of each destination, kNoSubnetNode if none.
  std::vector<std::size_t> target(order.size(), kNoSubnetNode);
  for (std::size_t d = 0; d < order.size(); ++d) {
    const std::size_t node = is_hca_port(g, order[d]) ? attached_switch(g, order[d]) : order[d].node;
    if (node != kNoSubnetNode) target[d] = sw.of[node];
  }

  std::vector<std::uint32_t> count;
  std::vector<std::vector<RemoteUse>> remotes;
  for (std::size_t s = 0; s < sw.size(); ++s) {
    const std::size_t s_node = sw.node[s];
    const SubnetNode& S = g.nodes[s_node];
    const unsigned nports = S.num_ports() + 1;
    std::vector<PortNum>& lft = out.lft[s_node];
    count.assign(nports, 0);
    remotes.assign(for_lmc ? order.size() : 0, {});

    for (unsigned offset = 0; offset < lids_per_port; ++offset) {
      for (std::size_t d = 0; d < order.size(); ++d) {
        const SubnetPortRef dest = order[d];
        const LidRange range = g.port(dest).lids;
        if (!range.assigned() || range.first + offset > range.last) continue;
        const Lid lid = static_cast<Lid>(range.first + offset);
        if (dest.node == s_node) {
          lft[lid] = 0;
          continue;
        }
        const bool hca = is_hca_port(g, dest);
        PortNum best = 0;
        if (hca && attached_switch(g, dest) == s_node) {
          best = g.port(dest).peer->port;
        } else {
          if (target[d] == kNoSubnetNode) continue;
          const std::size_t t = target[d];
          const std::uint8_t least = hops.least(s, t);
          if (least == kNoHops) continue;
          unsigned start = 1;
          if (offset > 0 && !dor && lft[lid - 1] != kNoRoute) start = lft[lid - 1] + 1u;
          // osm_switch_recommend_path's scan.
          std::uint32_t least_paths = kMax, least_other_sys = kMax, least_fwd = kMax;
          PortNum best_other_sys = 0;
          std::size_t first_remote = kNoSubnetNode;
          for (unsigned i = start; i < start + nports; ++i) {
            const unsigned port = i % nports;
            if (port == 0) continue;
            const auto& peer = S.ports[port].peer;
            if (!peer || hops.get(s, t, port) != least) continue;
            const std::uint32_t check = count[port];
            const RemoteUse* rem = nullptr;
            RemoteUse fresh{peer->node, peer->port, 0};
            if (dor) {
              if (first_remote == kNoSubnetNode) first_remote = peer->node;
              else if (peer->node != first_remote) continue;
              if (for_lmc) {
                rem = &fresh;
                for (const RemoteUse& e : remotes[d])
                  if (e.node == peer->node && e.port == peer->port) { rem = &e; break; }
              }
            } else if (for_lmc) {
              // OpenSM first looks for the neighbour's system image GUID among those this
              // destination used, then its node GUID; with one system per node both coincide.
              for (const RemoteUse& e : remotes[d])
                if (e.node == peer->node) { rem = &e; break; }
              if (rem == nullptr && check < least_other_sys) {
                least_other_sys = check;
                best_other_sys = static_cast<PortNum>(port);
                least_fwd = 0;
              }
            }
            if (check < least_paths) {
              best = static_cast<PortNum>(port);
              least_paths = check;
              if (for_lmc && rem != nullptr && rem->lids < least_fwd) least_fwd = rem->lids;
            } else if (for_lmc && rem != nullptr && check == least_paths && rem->lids < least_fwd) {
              least_fwd = rem->lids;
              best = static_cast<PortNum>(port);
            }
          }
          if (best == 0) continue;
          if (for_lmc && !dor && best_other_sys != 0) best = best_other_sys;
        }
        lft[lid] = best;
        if (!hca) continue;
        ++count[best];
        if (!for_lmc) continue;
        const SubnetPortRef peer = *S.ports[best].peer;
        bool found = false;
        for (RemoteUse& e : remotes[d]) {
          if (e.node == peer.node && (!dor || e.port == peer.port)) {
            ++e.lids;
            found = true;
            break;
          }
        }
        if (!found) remotes[d].push_back({peer.node, peer.port, 1});
      }
    }
  }
  return out;
}

}  // namespace ibfsim
