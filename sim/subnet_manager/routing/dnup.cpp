#include "sim/subnet_manager/routing/dnup.h"

#include <deque>

#include "sim/subnet_manager/routing/minhop.h"
#include "sim/subnet_manager/routing/ucast_lft_builder.h"

namespace ibfsim {

namespace {

enum class Dir { kUp, kDown, kEqual };
constexpr unsigned kUnranked = 0xFFFFFFFF;

// Rank 0: switches linked to a CA; the rest by breadth-first distance from them (ports ascending).
std::vector<unsigned> dnup_ranks(const SubnetGraph& g, const SwitchIndex& sw) {
  const std::size_t n = sw.size();
  std::vector<unsigned> rank(n, kUnranked);
  std::deque<std::size_t> queue;
  for (std::size_t s = 0; s < n; ++s) {
    for (const SubnetPort& p : g.nodes[sw.node[s]].ports) {
      if (p.peer && !sw.is_switch(p.peer->node)) {
        rank[s] = 0;
        queue.push_back(s);
        break;
      }
    }
  }
  while (!queue.empty()) {
    const std::size_t u = queue.front();
    queue.pop_front();
    for (const SubnetPort& p : g.nodes[sw.node[u]].ports) {
      if (!p.peer || !sw.is_switch(p.peer->node)) continue;
      const std::size_t v = sw.of[p.peer->node];
      if (rank[v] > rank[u] + 1) {
        rank[v] = rank[u] + 1;
        queue.push_back(v);
      }
    }
  }
  return rank;
}

}  // namespace

HopMatrix dnup_hop_matrix(const SubnetGraph& g, const SwitchIndex& sw) {
  const std::size_t n = sw.size();
  const std::vector<unsigned> rank = dnup_ranks(g, sw);
  auto direction = [&](std::size_t cur, std::size_t rem) {
    if (rank[cur] == 0 && rank[rem] == 0) return Dir::kEqual;  // two leaves
    if (rank[cur] < rank[rem]) return Dir::kDown;
    if (rank[cur] > rank[rem]) return Dir::kUp;
    return Dir::kEqual;
  };
  HopMatrix hops(n, max_switch_ports(g));
  std::vector<Dir> dir(n);
  std::vector<bool> queued(n);
  std::deque<std::size_t> queue;
  for (std::size_t t = 0; t < n; ++t) {
    hops.set(t, t, 0, 0);
    std::fill(queued.begin(), queued.end(), false);
    dir[t] = Dir::kDown;
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
        if (cur_dir == Dir::kUp && next == Dir::kDown) continue;  // the one illegal turn
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

RoutingTables route_dnup(const SubnetGraph& g) {
  const SwitchIndex sw(g);
  bool leaf = false;
  for (std::size_t s = 0; s < sw.size() && !leaf; ++s)
    for (const SubnetPort& p : g.nodes[sw.node[s]].ports) leaf |= p.peer && !sw.is_switch(p.peer->node);
  if (!leaf) {
    RoutingTables t = route_minhop(g);
    t.notes.push_back("dnup: no leaf switches found, falling back to minhop (as OpenSM does)");
    return t;
  }
  return build_ucast_lfts(g, sw, dnup_hop_matrix(g, sw), /*dor=*/false);
}

}  // namespace ibfsim
