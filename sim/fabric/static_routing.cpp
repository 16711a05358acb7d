#include "sim/fabric/static_routing.h"

#include <algorithm>

#include <fmt/format.h>

#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <limits>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

using SwitchGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
constexpr unsigned kUnreached = std::numeric_limits<unsigned>::max();
constexpr std::size_t kNone = std::numeric_limits<std::size_t>::max();

}  // namespace

StaticRouting compute_static_routing(const Topology& topo) {
  StaticRouting r;
  const std::size_t num_nodes = topo.nodes.size();
  r.port_lid.resize(num_nodes);
  r.lft.resize(num_nodes);
  r.lid_owner.push_back(PortRef{});  // LID 0 is reserved

  // ---- LIDs: HCA ports, then switches ----
  auto assign = [&](std::size_t node, unsigned port) {
    if (r.lid_owner.size() > kLidUnicastMax) {
      throw InputError(fmt::format("{}: expected at most {} ports with LIDs, got more",
                                   topo.nodes[node].mark.to_string(), kLidUnicastMax));
    }
    r.port_lid[node][port] = static_cast<Lid>(r.lid_owner.size());
    r.lid_owner.push_back(PortRef{node, port});
  };
  for (std::size_t n = 0; n < num_nodes; ++n) r.port_lid[n].assign(topo.nodes[n].num_ports + 1, 0);
  for (std::size_t n : topo.hcas())
    for (unsigned p = 1; p <= topo.nodes[n].num_ports; ++p) assign(n, p);
  const std::vector<std::size_t> switches = topo.switches();
  for (std::size_t n : switches) assign(n, 0);
  r.lft_top = static_cast<Lid>(r.lid_owner.size() - 1);

  // ---- hop distances between switches (paths never cross an HCA) ----
  std::vector<std::size_t> switch_index(num_nodes, kNone);
  for (std::size_t i = 0; i < switches.size(); ++i) switch_index[switches[i]] = i;
  const auto cables_at = topo.port_cables();
  SwitchGraph graph(switches.size());
  for (const TopoCable& c : topo.cables) {
    if (topo.nodes[c.node_a].type == NodeType::kSwitch && topo.nodes[c.node_b].type == NodeType::kSwitch) {
      boost::add_edge(switch_index[c.node_a], switch_index[c.node_b], graph);
    }
  }
  // dist[from][to] in hops; BFS once per switch instead of once per LID, since every LID behind
  // the same switch shares its distances.
  std::vector<std::vector<unsigned>> dist(switches.size());
  for (std::size_t s = 0; s < switches.size(); ++s) {
    dist[s].assign(switches.size(), kUnreached);
    dist[s][s] = 0;
    boost::breadth_first_search(
        graph, boost::vertex(s, graph),
        boost::visitor(boost::make_bfs_visitor(boost::record_distances(dist[s].data(), boost::on_tree_edge()))));
  }

  // [lid] -> the switch port an HCA port's LID is cabled to (node kNone if none).
  std::vector<PortRef> attached(r.lid_owner.size(), PortRef{kNone, 0});
  for (Lid lid = 1; lid <= r.lft_top; ++lid) {
    const PortRef owner = r.lid_owner[lid];
    if (topo.nodes[owner.node].type != NodeType::kHca) continue;
    if (const auto& c = cables_at[owner.node][owner.port]) {
      const PortRef peer = topo.cables[*c].far_end(owner.node);
      if (topo.nodes[peer.node].type == NodeType::kSwitch) attached[lid] = peer;
    }
  }

  // ---- LFTs ----
  for (std::size_t si = 0; si < switches.size(); ++si) {
    const std::size_t sw = switches[si];
    const unsigned num_ports = topo.nodes[sw].num_ports;
    std::vector<std::uint8_t>& lft = r.lft[sw];
    lft.assign(static_cast<std::size_t>(r.lft_top) + 1, kNoRoute);
    std::vector<std::uint32_t> load(num_ports + 1, 0);  // LIDs routed through each port so far

    // The switch index each port leads to, if it leads to a switch.
    std::vector<std::size_t> far_switch(num_ports + 1, kNone);
    for (unsigned p = 1; p <= num_ports; ++p) {
      if (!cables_at[sw][p]) continue;
      const PortRef end = topo.cables[*cables_at[sw][p]].far_end(sw);
      if (topo.nodes[end.node].type == NodeType::kSwitch) far_switch[p] = switch_index[end.node];
    }
    // Ports one hop closer to each destination switch; computed lazily, shared by its LIDs.
    std::vector<std::vector<std::uint8_t>> closer(switches.size());
    std::vector<bool> closer_known(switches.size(), false);
    auto ports_closer_to = [&](std::size_t dst) -> const std::vector<std::uint8_t>& {
      if (!closer_known[dst]) {
        closer_known[dst] = true;
        const unsigned d = dist[si][dst];
        if (d != kUnreached && d > 0) {
          for (unsigned p = 1; p <= num_ports; ++p) {
            if (far_switch[p] != kNone && dist[far_switch[p]][dst] == d - 1) {
              closer[dst].push_back(static_cast<std::uint8_t>(p));
            }
          }
        }
      }
      return closer[dst];
    };

    std::vector<std::uint8_t> direct(1);
    for (Lid lid = 1; lid <= r.lft_top; ++lid) {
      const PortRef owner = r.lid_owner[lid];
      const std::vector<std::uint8_t>* candidates = nullptr;
      if (owner.node == sw) {
        lft[lid] = 0;
        continue;
      }
      if (topo.nodes[owner.node].type == NodeType::kSwitch) {
        candidates = &ports_closer_to(switch_index[owner.node]);
      } else if (const PortRef& at = attached[lid]; at.node == sw) {
        direct[0] = static_cast<std::uint8_t>(at.port);  // the HCA port is cabled to this switch
        candidates = &direct;
      } else if (at.node != kNone) {
        candidates = &ports_closer_to(switch_index[at.node]);
      }
      if (candidates == nullptr || candidates->empty()) continue;  // unreachable: kNoRoute
      std::uint8_t best = (*candidates)[0];
      for (std::uint8_t p : *candidates)
        if (load[p] < load[best]) best = p;  // candidates ascend, so ties keep the lowest port
      lft[lid] = best;
      ++load[best];
    }
  }
  return r;
}

std::size_t tree_switch_levels(const Topology& topo) {
  const std::size_t n = topo.nodes.size();
  constexpr std::size_t kUnset = ~std::size_t{0};
  std::vector<std::size_t> level(n, kUnset);
  std::vector<std::vector<std::size_t>> switch_neighbours(n);
  std::vector<std::size_t> frontier;
  for (const TopoCable& c : topo.cables) {
    const bool a_sw = topo.nodes[c.node_a].type == NodeType::kSwitch;
    const bool b_sw = topo.nodes[c.node_b].type == NodeType::kSwitch;
    if (a_sw && b_sw) {
      switch_neighbours[c.node_a].push_back(c.node_b);
      switch_neighbours[c.node_b].push_back(c.node_a);
    } else if (a_sw != b_sw) {
      const std::size_t sw = a_sw ? c.node_a : c.node_b;
      if (level[sw] == kUnset) level[sw] = 1, frontier.push_back(sw);
    }
  }
  // Breadth first from the switches with hosts: a switch's level is one more than its nearest.
  std::size_t levels = frontier.empty() ? 0 : 1;
  for (std::size_t k = 0; k < frontier.size(); ++k)
    for (std::size_t m : switch_neighbours[frontier[k]])
      if (level[m] == kUnset) {
        level[m] = level[frontier[k]] + 1;
        levels = std::max(levels, level[m]);
        frontier.push_back(m);
      }
  for (std::size_t s = 0; s < n; ++s) {
    if (topo.nodes[s].type != NodeType::kSwitch) continue;
    if (level[s] == kUnset) return 0;  // a switch no host reaches
    for (std::size_t m : switch_neighbours[s])
      if (level[m] + 1 != level[s] && level[s] + 1 != level[m]) return 0;  // not between adjacent levels
  }
  return levels;
}

}  // namespace ibfsim
