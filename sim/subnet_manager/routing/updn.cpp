#include "sim/subnet_manager/routing/updn.h"

#include <fmt/format.h>

#include <deque>
#include <map>

#include "sim/core/error.h"
#include "sim/subnet_manager/routing/minhop.h"
#include "sim/subnet_manager/routing/ucast_lft_builder.h"

namespace ibfsim {

namespace {

enum class Dir { kUp, kDown };

}  // namespace

std::vector<std::size_t> updn_auto_roots(const SubnetGraph& g) {
  const SwitchIndex sw(g);
  const auto dist = switch_distances(g, sw);
  std::vector<unsigned> cas(sw.size(), 0);
  unsigned total = 0;
  for (std::size_t s = 0; s < sw.size(); ++s) {
    for (const SubnetPort& p : g.nodes[sw.node[s]].ports) {
      if (p.peer && !g.nodes[p.peer->node].is_switch()) {
        ++cas[s];
        ++total;
      }
    }
  }
  std::vector<std::size_t> roots;
  for (std::size_t s = 0; s < sw.size(); ++s) {
    std::map<unsigned, unsigned> hist;
    for (std::size_t t = 0; t < sw.size(); ++t)
      if (cas[t] != 0 && dist[s][t] != kNoHops) hist[dist[s][t]] += cas[t];
    unsigned above90 = 0, above5 = 0;
    for (const auto& [h, k] : hist) {
      above90 += k > total * 0.9;
      above5 += k > total * 0.05;
    }
    if (above90 == 1 && above5 == 1) roots.push_back(sw.node[s]);
  }
  return roots;
}

std::vector<unsigned> updn_ranks(const SubnetGraph& g, const SwitchIndex& sw, const std::vector<std::size_t>& roots) {
  const std::size_t n = sw.size();
  // Rank: breadth-first distance from the roots (ports in ascending order).
  constexpr unsigned kUnranked = 0xFFFFFFFF;
  std::vector<unsigned> rank(n, kUnranked);
  std::deque<std::size_t> queue;
  std::vector<bool> is_root(n, false);
  for (std::size_t r : roots) is_root[sw.of[r]] = true;
  for (std::size_t s = 0; s < n; ++s) {
    if (is_root[s]) {
      rank[s] = 0;
      queue.push_back(s);
    }
  }
  while (!queue.empty()) {
    const std::size_t u = queue.front();
    queue.pop_front();
    for (const SubnetPort& p : g.nodes[sw.node[u]].ports) {
      if (!p.peer || !sw.is_switch(p.peer->node)) continue;
      const std::size_t v = sw.of[p.peer->node];
      if (rank[v] == kUnranked || rank[v] > rank[u] + 1) {
        rank[v] = rank[u] + 1;
        queue.push_back(v);
      }
    }
  }
  return rank;
}

HopMatrix updn_hop_matrix(const SubnetGraph& g, const SwitchIndex& sw, const std::vector<std::size_t>& roots) {
  const std::size_t n = sw.size();
  const std::vector<unsigned> rank = updn_ranks(g, sw, roots);
  std::deque<std::size_t> queue;
  auto direction = [&](std::size_t cur, std::size_t rem) {
    if (rank[cur] == 0 && rank[rem] == 0) return Dir::kUp;
    if (rank[cur] != rank[rem]) return rank[cur] < rank[rem] ? Dir::kDown : Dir::kUp;
    return g.nodes[sw.node[cur]].node_guid > g.nodes[sw.node[rem]].node_guid ? Dir::kUp : Dir::kDown;
  };

  HopMatrix hops(n, max_switch_ports(g));
  std::vector<Dir> dir(n);
  std::vector<bool> queued(n);
  for (std::size_t t = 0; t < n; ++t) {
    hops.set(t, t, 0, 0);
    std::fill(queued.begin(), queued.end(), false);
    dir[t] = Dir::kUp;
    queued[t] = true;
    queue.assign(1, t);
    while (!queue.empty()) {
      const std::size_t u = queue.front();
      queue.pop_front();
      queued[u] = false;
      const Dir cur_dir = dir[u];
      const std::uint8_t cur_min = hops.least(u, t);
      const SubnetNode& node = g.nodes[sw.node[u]];
      for (unsigned p = 1; p <= node.num_ports(); ++p) {
        const auto& peer = node.ports[p].peer;
        if (!peer || !sw.is_switch(peer->node)) continue;
        const std::size_t rem = sw.of[peer->node];
        const Dir next = direction(u, rem);
        if (cur_dir == Dir::kDown && next == Dir::kUp) continue;
        if (cur_min + 1 < hops.get(rem, t, peer->port)) {
          hops.set(rem, t, peer->port, static_cast<std::uint8_t>(cur_min + 1));
          if (!queued[rem]) {
            dir[rem] = next;
            queued[rem] = true;
            queue.push_back(rem);
          }
        }
      }
    }
  }
  return hops;
}

std::vector<std::size_t> updn_roots(const SubnetGraph& g, const std::vector<Guid>& root_guids) {
  std::vector<std::size_t> roots;
  if (root_guids.empty()) {
    roots = updn_auto_roots(g);
  } else {
    for (Guid guid : root_guids) {
      const auto n = g.find_node_by_guid(guid);
      if (!n || !g.nodes[*n].is_switch())
        throw InputError(fmt::format("expected an updn root that is a switch of the subnet, got GUID {:#018x}", guid));
      roots.push_back(*n);
    }
  }
  return roots;
}

RoutingTables route_updn(const SubnetGraph& g, const std::vector<Guid>& root_guids) {
  const SwitchIndex sw(g);
  const std::vector<std::size_t> roots = updn_roots(g, root_guids);
  if (roots.empty()) {
    RoutingTables t = route_minhop(g);
    t.notes.push_back("updn: no root switches found, falling back to minhop (as OpenSM does)");
    return t;
  }
  return build_ucast_lfts(g, sw, updn_hop_matrix(g, sw, roots), /*dor=*/false);
}

}  // namespace ibfsim
