#include "sim/subnet_manager/routing/dfsssp.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <cstdint>
#include <limits>
#include <map>
#include <queue>

#include "sim/core/error.h"
#include "sim/subnet_manager/routing/hop_matrix.h"
#include "sim/subnet_manager/routing/dependency_cycle.h"
#include "sim/subnet_manager/routing/sssp.h"

namespace ibfsim {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

// Switch-to-switch channels, numbered; per (switch number, port) the channel leaving by it.
struct Channels {
  std::vector<std::size_t> from, to;  // switch numbers
  std::vector<std::vector<std::uint32_t>> out;  // [switch][port] -> channel or kNone
};

Channels switch_channels(const SubnetGraph& g, const SwitchIndex& sw) {
  Channels c;
  c.out.resize(sw.size());
  for (std::size_t s = 0; s < sw.size(); ++s) {
    const SubnetNode& n = g.nodes[sw.node[s]];
    c.out[s].assign(n.num_ports() + 1, kNone);
    for (unsigned p = 1; p <= n.num_ports(); ++p) {
      const auto& peer = n.ports[p].peer;
      if (!peer || !sw.is_switch(peer->node)) continue;
      c.out[s][p] = static_cast<std::uint32_t>(c.from.size());
      c.from.push_back(s);
      c.to.push_back(sw.of[peer->node]);
    }
  }
  return c;
}

// A cycle (channel list) in the dependencies, empty if none.
std::vector<std::size_t> find_cycle(std::size_t channels, const std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t>& deps) {
  DependencyGraph graph(channels);
  for (const auto& [d, n] : deps)
    if (n > 0) boost::add_edge(d.first, d.second, graph);
  return find_dependency_cycle(graph);
}

// LID -> destination switch number and, at that switch, the port (0: the switch itself).
struct Destinations {
  std::vector<std::size_t> dest_switch;
  std::vector<PortNum> dest_port;
};

Destinations destinations(const SubnetGraph& g, const SwitchIndex& sw, Lid lft_top) {
  Destinations d;
  d.dest_switch.assign(static_cast<std::size_t>(lft_top) + 1, kNoSubnetNode);
  d.dest_port.assign(d.dest_switch.size(), 0);
  std::vector<std::size_t>& dest_switch = d.dest_switch;
  std::vector<PortNum>& dest_port = d.dest_port;
  for (std::size_t node = 0; node < g.nodes.size(); ++node) {
    const SubnetNode& nd = g.nodes[node];
    for (unsigned p = 0; p <= nd.num_ports(); ++p) {
      const LidRange r = nd.ports[p].lids;
      if (!r.assigned()) continue;
      std::size_t s = kNoSubnetNode;
      PortNum at = 0;
      if (nd.is_switch()) {
        s = sw.of[node];
      } else if (nd.ports[p].peer && sw.is_switch(nd.ports[p].peer->node)) {
        s = sw.of[nd.ports[p].peer->node];
        at = nd.ports[p].peer->port;
      }
      for (unsigned lid = r.first; lid <= r.last; ++lid) {
        dest_switch[lid] = s;
        dest_port[lid] = at;
      }
    }
  }

  return d;
}

// A path from a switch with HCAs to a LID, and the layer (SL, VL) it travels in.
struct LayeredPath {
  std::size_t s;
  unsigned lid;
  unsigned layer = 0;
};

// Layers: breaks the dependency cycles by moving paths up, layer by layer; returns the layers used.
unsigned assign_layers(const SubnetGraph& g, const SwitchIndex& sw, const Channels& ch, const std::vector<std::uint32_t>& hcas,
                       const Destinations& dests, const RoutingTables& t, std::vector<LayeredPath>& paths) {
  const std::size_t n = sw.size();
  const std::vector<std::size_t>& dest_switch = dests.dest_switch;
  unsigned max_vls = 15;
  for (const SubnetNode& nd : g.nodes)
    for (unsigned p = 1; p <= nd.num_ports(); ++p)
      if (nd.ports[p].peer) max_vls = std::min(max_vls, nd.ports[p].data_vls);

  // The channels of the path from switch s to LID lid.
  auto path = [&](std::size_t s, unsigned lid) {
    std::vector<std::uint32_t> out;
    for (std::size_t u = s, hops = 0; u != dest_switch[lid] && hops <= n; ++hops) {
      const PortNum p = t.lft[sw.node[u]][lid];
      if (p == kNoRoute || p == 0) break;
      const std::uint32_t c = ch.out[u][p];
      if (c == kNone) break;
      out.push_back(c);
      u = ch.to[c];
    }
    return out;
  };
  // Only switches with HCAs are sources of data traffic (deadlock_check.h).
  for (std::size_t s = 0; s < n; ++s)
    if (hcas[s] != 0)
      for (unsigned lid = 1; lid <= t.lft_top; ++lid)
        if (dest_switch[lid] != kNoSubnetNode && dest_switch[lid] != s) paths.push_back({s, lid});

  unsigned layers = 1;
  for (unsigned layer = 0; layer < layers; ++layer) {
    // Dependencies of this layer with the paths using each.
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::size_t> deps;
    std::map<std::pair<std::uint32_t, std::uint32_t>, std::vector<std::size_t>> users;
    for (std::size_t i = 0; i < paths.size(); ++i) {
      if (paths[i].layer != layer) continue;
      const auto chans = path(paths[i].s, paths[i].lid);
      for (std::size_t k = 1; k < chans.size(); ++k) {
        ++deps[{chans[k - 1], chans[k]}];
        users[{chans[k - 1], chans[k]}].push_back(i);
      }
    }
    for (;;) {
      const auto cycle = find_cycle(ch.from.size(), deps);
      if (cycle.empty()) break;
      // The cycle's dependency with the fewest paths.
      std::pair<std::uint32_t, std::uint32_t> weakest{};
      std::size_t fewest = std::numeric_limits<std::size_t>::max();
      for (std::size_t k = 0; k < cycle.size(); ++k) {
        const std::pair<std::uint32_t, std::uint32_t> d{static_cast<std::uint32_t>(cycle[k]),
                                                        static_cast<std::uint32_t>(cycle[(k + 1) % cycle.size()])};
        if (deps[d] < fewest) {
          fewest = deps[d];
          weakest = d;
        }
      }
      if (layer + 1 >= max_vls) {
        throw InputError(fmt::format("dfsssp: expected the routes to fit in the {} data VLs every port has, they "
                                     "need more (the dependency cycles of VL {} cannot be broken)",
                                     max_vls, layer));
      }
      layers = std::max(layers, layer + 2);
      for (std::size_t i : users[weakest]) {
        if (paths[i].layer != layer) continue;
        paths[i].layer = layer + 1;
        const auto chans = path(paths[i].s, paths[i].lid);
        for (std::size_t k = 1; k < chans.size(); ++k) --deps[{chans[k - 1], chans[k]}];
      }
    }
  }

  return layers;
}

}  // namespace

RoutingTables route_dfsssp(const SubnetGraph& g) {
  // OpenSM's dfsssp routes exactly as its sssp (sssp.h), then spreads the paths over layers.
  RoutingTables t = route_sssp(g);
  if (!t.notes.empty()) return t;  // sssp fell back to minhop
  const SwitchIndex sw(g);
  const Channels ch = switch_channels(g, sw);
  const std::size_t n = sw.size();
  std::vector<std::uint32_t> hcas(n, 0);
  for (std::size_t s = 0; s < n; ++s)
    for (const SubnetPort& p : g.nodes[sw.node[s]].ports)
      if (p.peer && !g.nodes[p.peer->node].is_switch()) ++hcas[s];
  const Destinations dests = destinations(g, sw, t.lft_top);
  std::vector<LayeredPath> paths;
  const unsigned layers = assign_layers(g, sw, ch, hcas, dests, t, paths);

  PathServiceLevels sl;
  sl.by_source_switch.resize(g.nodes.size());
  for (std::size_t s = 0; s < n; ++s) sl.by_source_switch[sw.node[s]].assign(static_cast<std::size_t>(t.lft_top) + 1, 0);
  for (const LayeredPath& p : paths) sl.by_source_switch[sw.node[p.s]][p.lid] = static_cast<std::uint8_t>(p.layer);
  for (unsigned i = 0; i < 16; ++i) sl.sl_to_vl[i] = static_cast<std::uint8_t>(i < layers ? i : 0);
  sl.vls_needed = layers;
  t.sl = std::move(sl);
  t.notes.push_back(fmt::format("dfsssp: {} layer{} (SL i -> VL i)", layers, layers == 1 ? "" : "s"));
  return t;
}

}  // namespace ibfsim
