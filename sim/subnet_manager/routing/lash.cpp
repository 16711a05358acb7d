#include "sim/subnet_manager/routing/lash.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <deque>

#include "sim/subnet_manager/routing/glibc_random.h"
#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/lash_layers.h"
#include "sim/subnet_manager/routing/minhop.h"

namespace ibfsim {

namespace {

constexpr unsigned kNone = 9999;  // OpenSM's NONE
constexpr int kBalanceLimit = 6;

struct LashSwitch {
  std::vector<std::size_t> link_to;   // per link (switch-to-switch port, ascending): the switch reached
  std::vector<PortNum> link_port;     // and the port it leaves by
  std::vector<unsigned> out_link;     // per destination switch: the link of the route, kNone
  std::vector<unsigned> lane;         // per destination switch: the pair's layer, kNone
};

std::vector<LashSwitch> lash_switches(const SubnetGraph& g, const SwitchIndex& sw) {
  std::vector<LashSwitch> s(sw.size());
  for (std::size_t i = 0; i < sw.size(); ++i) {
    const SubnetNode& n = g.nodes[sw.node[i]];
    for (unsigned p = 1; p <= n.num_ports(); ++p) {
      const auto& peer = n.ports[p].peer;
      if (!peer || !sw.is_switch(peer->node)) continue;
      s[i].link_to.push_back(sw.of[peer->node]);
      s[i].link_port.push_back(static_cast<PortNum>(p));
    }
    s[i].out_link.assign(sw.size(), kNone);
    s[i].lane.assign(sw.size(), kNone);
  }
  return s;
}

// shortest_path + generate_routing_func_for_mst for every root: a switch routes each descendant in
// a tree through its first link to the child above it, unless an earlier tree routed it already.
void route_by_trees(std::vector<LashSwitch>& s) {
  const std::size_t n = s.size();
  std::vector<std::vector<std::size_t>> children(n);
  for (std::size_t root = 0; root < n; ++root) {
    for (auto& c : children) c.clear();
    std::vector<bool> queued(n, false);
    std::deque<std::size_t> bfs{root};
    queued[root] = true;
    while (!bfs.empty()) {
      const std::size_t u = bfs.front();
      bfs.pop_front();
      for (std::size_t t : s[u].link_to)
        if (!queued[t]) {
          queued[t] = true;
          bfs.push_back(t);
          children[u].push_back(t);
        }
    }
    // Post-order: the descendants of each switch, then its routes to them.
    auto descend = [&](auto&& self, std::size_t u) -> std::vector<std::size_t> {
      std::vector<std::size_t> all;
      for (std::size_t c : children[u]) {
        std::vector<std::size_t> below = self(self, c);
        const unsigned link = static_cast<unsigned>(std::find(s[u].link_to.begin(), s[u].link_to.end(), c) - s[u].link_to.begin());
        for (std::size_t d : below)
          if (s[u].out_link[d] == kNone) s[u].out_link[d] = link;
        all.insert(all.end(), below.begin(), below.end());
      }
      all.push_back(u);
      return all;
    };
    descend(descend, root);
  }
}

// The least operational data VLs over switch-to-switch ports (OpenSM: switch ports with a link).
unsigned lash_vls(const SubnetGraph& g, const SwitchIndex& sw) {
  unsigned vls = 16;  // OpenSM starts from code 5 (15 VLs)
  for (std::size_t i = 0; i < sw.size(); ++i) {
    const SubnetNode& n = g.nodes[sw.node[i]];
    for (unsigned p = 1; p <= n.num_ports(); ++p)
      if (n.ports[p].peer) vls = std::min(vls, n.ports[p].data_vls);
  }
  return std::min(vls, 15u);
}

struct LashState {
  std::vector<LashSwitch>& s;
  LashLayers& cdg;
  std::vector<unsigned char> where;  // virtual_location [src][dst][layer]: 0, 1 (there), 2 (tried)
  std::vector<int> in_layer;         // num_mst_in_lane
  unsigned layers;

  unsigned char& loc(std::size_t a, std::size_t b, unsigned l) { return where[(a * s.size() + b) * layers + l]; }
  bool pair_cycles(std::size_t i, std::size_t j, unsigned l) {
    cdg.add_path(i, j, l);
    cdg.add_path(j, i, l);
    const bool c1 = cdg.cycle_from_path(i, j, l);
    const bool c2 = cdg.cycle_from_path(j, i, l);
    cdg.reset_marks(l);
    return c1 || c2;
  }
};

// lash_core's layer assignment; false when the pairs need more layers than there are.
bool assign_layers(LashState& st, unsigned& needed) {
  const std::size_t n = st.s.size();
  std::vector<bool> done(n * n, false);
  needed = 1;
  for (std::size_t i = 0; i < n; ++i) {
    for (std::size_t j = 0; j < n; ++j) {
      if (j == i || done[i * n + j]) continue;
      unsigned lane = 0;
      bool cycle = false;
      while (lane < needed) {
        cycle = st.pair_cycles(i, j, lane);
        if (!cycle) break;
        st.cdg.undo_path(i, j, lane);
        st.cdg.undo_path(j, i, lane);
        ++lane;
      }
      if (!cycle) {
        st.cdg.keep_path(i, j, lane);
        st.cdg.keep_path(j, i, lane);
        st.in_layer[lane] += 2;
      }
      st.s[i].lane[j] = lane;
      st.s[j].lane[i] = lane;
      if (cycle) {
        if (++needed > st.layers) return false;
        st.cdg.add_path(i, j, lane);
        st.cdg.add_path(j, i, lane);
        st.cdg.keep_path(i, j, lane);
        st.cdg.keep_path(j, i, lane);
        st.in_layer[lane] += 2;
      }
      st.loc(i, j, lane) = 1;
      st.loc(j, i, lane) = 1;
      done[i * n + j] = done[j * n + i] = true;
    }
  }
  return true;
}

// balance_virtual_lanes.
void balance_layers(LashState& st, unsigned needed) {
  if (needed == 1) return;
  const std::size_t n = st.s.size();
  GlibcRandom rnd;
  unsigned max_l = 0, min_l = needed - 1;
  int trials = st.in_layer[max_l];
  for (;;) {
    std::size_t src = static_cast<std::size_t>(std::abs(rnd.next())) % n;
    std::size_t dst = static_cast<std::size_t>(std::abs(rnd.next())) % n;
    std::size_t guard = 0;
    while (st.loc(src, dst, max_l) != 1) {
      const std::size_t start = dst;
      dst = dst == n - 1 ? 0 : dst + 1;
      while (dst != start && st.loc(src, dst, max_l) != 1) dst = dst == n - 1 ? 0 : dst + 1;
      if (st.loc(src, dst, max_l) != 1) src = src == n - 1 ? 0 : src + 1;
      if (++guard > n) return;  // no path left in the fullest layer (OpenSM would spin)
    }
    if (st.pair_cycles(src, dst, min_l)) {
      st.cdg.undo_path(src, dst, min_l);
      st.cdg.undo_path(dst, src, min_l);
      st.loc(src, dst, max_l) = st.loc(dst, src, max_l) = 2;
      trials -= 2;
    } else {
      st.cdg.keep_path(src, dst, min_l);
      st.cdg.keep_path(dst, src, min_l);
      st.in_layer[max_l] -= 2;
      st.in_layer[min_l] += 2;
      st.cdg.remove_path(src, dst, max_l);
      st.cdg.remove_path(dst, src, max_l);
      st.loc(src, dst, max_l) = st.loc(dst, src, max_l) = 0;
      st.loc(src, dst, min_l) = st.loc(dst, src, min_l) = 1;
      st.s[src].lane[dst] = st.s[dst].lane[src] = min_l;
    }
    bool stop = trials == 0 || st.in_layer[max_l] - st.in_layer[min_l] < kBalanceLimit;
    const unsigned old_min = min_l, old_max = max_l;
    int lo = 9999, hi = 0;
    for (unsigned i = 0; i < needed; ++i) {
      if (st.in_layer[i] < lo) {
        lo = st.in_layer[i];
        min_l = i;
      }
      if (st.in_layer[i] > hi) {
        hi = st.in_layer[i];
        max_l = i;
      }
    }
    if (old_min != min_l) {
      trials = st.in_layer[max_l];
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          if (st.loc(i, j, max_l) == 2) st.loc(i, j, max_l) = 1;
    }
    if (old_max != max_l) {
      trials = st.in_layer[max_l];
      for (std::size_t i = 0; i < n; ++i)
        for (std::size_t j = 0; j < n; ++j)
          if (st.loc(i, j, old_max) == 2) st.loc(i, j, old_max) = 1;
    }
    if (stop) return;
  }
}

// The switch a LID's port hangs off (the switch itself for its own LID), or npos.
std::vector<std::size_t> lid_switches(const SubnetGraph& g, const SwitchIndex& sw, Lid top) {
  std::vector<std::size_t> at(static_cast<std::size_t>(top) + 1, kNoSubnetNode);
  for (std::size_t node = 0; node < g.nodes.size(); ++node) {
    const SubnetNode& nd = g.nodes[node];
    for (unsigned p = 0; p <= nd.num_ports(); ++p) {
      const LidRange r = nd.ports[p].lids;
      if (!r.assigned()) continue;
      std::size_t s = kNoSubnetNode;
      if (nd.is_switch()) s = sw.of[node];
      else if (nd.ports[p].peer && sw.is_switch(nd.ports[p].peer->node)) s = sw.of[nd.ports[p].peer->node];
      for (unsigned lid = r.first; lid <= r.last && lid <= top; ++lid) at[lid] = s;
    }
  }
  return at;
}

}  // namespace

RoutingTables route_lash(const SubnetGraph& g) {
  const SwitchIndex sw(g);
  const std::size_t n = sw.size();
  std::vector<LashSwitch> s = lash_switches(g, sw);
  route_by_trees(s);
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j && s[i].out_link[j] == kNone) {
        RoutingTables t = route_minhop(g);
        t.notes.push_back("lash: the switches are not all connected; routed with minhop instead, as OpenSM does");
        return t;
      }
  std::vector<std::vector<int>> next(n, std::vector<int>(n, -1));
  for (std::size_t i = 0; i < n; ++i)
    for (std::size_t j = 0; j < n; ++j)
      if (i != j) next[i][j] = static_cast<int>(s[i].link_to[s[i].out_link[j]]);

  const unsigned vls = lash_vls(g, sw);
  LashLayers cdg(n, vls, next);
  LashState st{s, cdg, std::vector<unsigned char>(n * n * vls, 0), std::vector<int>(16, 0), vls};
  unsigned needed = 1;
  if (!assign_layers(st, needed)) {
    RoutingTables t = route_minhop(g);
    t.notes.push_back(fmt::format("lash: the paths need more layers than the {} data VLs every switch link has; routed "
                                  "with minhop instead, as OpenSM does",
                                  vls));
    return t;
  }
  balance_layers(st, needed);

  RoutingTables t = empty_routing_tables(g);
  const std::vector<std::size_t> lid_sw = lid_switches(g, sw, t.lft_top);
  PathServiceLevels sl;
  sl.by_source_switch.resize(g.nodes.size());
  for (std::size_t i = 0; i < n; ++i) {
    const std::size_t node = sw.node[i];
    auto& lft = t.lft[node];
    auto& row = sl.by_source_switch[node];
    row.assign(lft.size(), 0);
    for (unsigned lid = 1; lid <= t.lft_top; ++lid) {
      const std::size_t d = lid_sw[lid];
      if (d == kNoSubnetNode) continue;
      if (d == i) {
        // Its own LID to port 0, a CA's LIDs to the port the CA hangs off.
        const SubnetNode& nd = g.nodes[node];
        PortNum egress = 0;
        for (unsigned p = 1; p <= nd.num_ports(); ++p) {
          const auto& peer = nd.ports[p].peer;
          if (peer && !g.nodes[peer->node].is_switch() && g.port(*peer).lids.contains(static_cast<Lid>(lid)))
            egress = static_cast<PortNum>(p);
        }
        lft[lid] = egress;
      } else {
        lft[lid] = s[i].link_port[s[i].out_link[d]];
        row[lid] = static_cast<std::uint8_t>(s[i].lane[d]);
      }
    }
  }
  unsigned least_vls = 15;
  for (const SubnetNode& nd : g.nodes)
    for (unsigned p = 1; p <= nd.num_ports(); ++p)
      if (nd.ports[p].peer) least_vls = std::min(least_vls, nd.ports[p].data_vls);
  sl.sl_to_vl = opensm_default_sl_to_vl(least_vls);
  sl.vls_needed = needed;
  t.sl = std::move(sl);
  t.notes.push_back(fmt::format("lash: {} layer{} (SL i -> VL i)", needed, needed == 1 ? "" : "s"));
  return t;
}

}  // namespace ibfsim
