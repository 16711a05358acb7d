#include "sim/subnet_manager/routing/deadlock_check.h"

#include <fmt/format.h>

#include <algorithm>
#include <boost/graph/adjacency_list.hpp>
#include <boost/graph/strong_components.hpp>
#include <cstdint>
#include <limits>

#include "sim/core/error.h"
#include "sim/subnet_manager/routing/dependency_cycle.h"

namespace ibfsim {

namespace {

constexpr std::uint32_t kNone = std::numeric_limits<std::uint32_t>::max();

}  // namespace

std::string channel_name(const SubnetGraph& g, const Channel& c) {
  return fmt::format("{}/{} -> {}/{}", g.nodes[c.from.node].description, c.from.port, g.nodes[c.to.node].description,
                     c.to.port);
}

DeadlockReport check_deadlock(const SubnetGraph& g, const RoutingTables& t, bool switch_destinations) {
  // Channel numbers: one per linked port (the direction leaving it).
  std::vector<std::uint32_t> first_channel(g.nodes.size() + 1, 0);
  std::vector<Channel> channels;
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    first_channel[n] = static_cast<std::uint32_t>(channels.size());
    const SubnetNode& node = g.nodes[n];
    for (unsigned p = 0; p <= node.num_ports(); ++p) {
      if (node.ports[p].peer) channels.push_back({{n, static_cast<PortNum>(p)}, *node.ports[p].peer});
    }
  }
  std::vector<std::uint32_t> channel_of;  // per (node, port): index into channels or kNone
  std::vector<std::size_t> port_base(g.nodes.size());
  for (std::size_t n = 0, k = 0; n < g.nodes.size(); ++n) {
    port_base[n] = channel_of.size();
    for (unsigned p = 0; p <= g.nodes[n].num_ports(); ++p)
      channel_of.push_back(g.nodes[n].ports[p].peer ? static_cast<std::uint32_t>(k++) : kNone);
  }
  auto channel_at = [&](std::size_t node, unsigned port) { return channel_of[port_base[node] + port]; };

  // Sources and destinations: LID-owning ports.
  std::vector<SubnetPortRef> sources;
  std::vector<SubnetPortRef> lid_owner(static_cast<std::size_t>(t.lft_top) + 1);
  for (std::size_t n = 0; n < g.nodes.size(); ++n) {
    for (unsigned p = 0; p <= g.nodes[n].num_ports(); ++p) {
      const LidRange r = g.nodes[n].ports[p].lids;
      if (!r.assigned()) continue;
      if (!g.nodes[n].is_switch()) sources.push_back({n, static_cast<PortNum>(p)});
      for (unsigned lid = r.first; lid <= r.last && lid <= t.lft_top; ++lid) lid_owner[lid] = {n, static_cast<PortNum>(p)};
    }
  }

  // Walk every path, adding (channel, next channel) per VL; a walk stops where an earlier walk to
  // the same LID already went on from the same channel in the same VL (everything after is known).
  constexpr unsigned kVls = 16;
  std::vector<std::vector<std::pair<std::uint32_t, std::uint32_t>>> deps(kVls);
  std::vector<std::uint16_t> seen(channels.size() * kVls, 0);  // last destination LID walked
  std::vector<bool> vl_used(kVls, false), channel_used(channels.size(), false);
  const std::size_t max_hops = g.nodes.size() + 1;
  for (unsigned lid = 1; lid <= t.lft_top; ++lid) {
    if (!lid_owner[lid].valid()) continue;
    if (!switch_destinations && g.nodes[lid_owner[lid].node].is_switch()) continue;
    for (SubnetPortRef src : sources) {
      if (src == lid_owner[lid]) continue;
      const unsigned vl = t.sl ? t.sl->sl_to_vl[path_sl(g, t, src, static_cast<Lid>(lid)) & 0xF] & 0xF : 0;
      // The first channel: the HCA's own port.
      std::size_t node = src.node;
      std::uint32_t cur = channel_at(node, src.port);
      if (cur == kNone) continue;
      bool started = false;
      for (std::size_t hop = 0; hop <= max_hops; ++hop) {
        if (cur != kNone) {
          vl_used[vl] = true;
          channel_used[cur] = true;
          std::uint16_t& mark = seen[cur * kVls + vl];
          if (mark == lid && started) break;
          mark = static_cast<std::uint16_t>(lid);
          started = true;
          node = channels[cur].to.node;
        }
        if (!g.nodes[node].is_switch()) break;  // arrived at an HCA
        const PortNum out = t.port(node, static_cast<Lid>(lid));
        if (out == kNoRoute || out == 0) break;  // no route, or this switch owns the LID
        const std::uint32_t next = channel_at(node, out);
        if (next == kNone) break;  // routed to a port without a link
        if (cur != kNone) deps[vl].emplace_back(cur, next);
        cur = next;
      }
    }
  }

  DeadlockReport r;
  r.channels = static_cast<std::size_t>(std::count(channel_used.begin(), channel_used.end(), true));
  for (unsigned vl = 0; vl < kVls; ++vl) {
    if (!vl_used[vl]) continue;
    r.vls.push_back(vl);
    auto& d = deps[vl];
    std::sort(d.begin(), d.end());
    d.erase(std::unique(d.begin(), d.end()), d.end());
    r.dependencies += d.size();
    DependencyGraph graph(channels.size());
    for (const auto& [a, b] : d) boost::add_edge(a, b, graph);

    std::vector<int> component(channels.size());
    const int count = boost::strong_components(graph, component.data());
    std::vector<std::size_t> size(static_cast<std::size_t>(count), 0);
    for (int c : component) ++size[static_cast<std::size_t>(c)];
    std::vector<bool> self_loop(channels.size(), false);
    for (const auto& [a, b] : d)
      if (a == b) self_loop[a] = true;
    for (std::size_t v = 0; v < channels.size(); ++v)
      if (size[static_cast<std::size_t>(component[v])] > 1 || self_loop[v]) ++r.channels_in_cycles;

    const std::vector<std::size_t> cycle = find_dependency_cycle(graph);
    if (!cycle.empty()) {
      DependencyCycle c;
      c.vl = vl;
      for (std::size_t v : cycle) c.channels.push_back(channels[v]);
      r.cycles.push_back(std::move(c));
    }
  }
  return r;
}

std::string format_deadlock_report(const SubnetGraph& g, const DeadlockReport& r) {
  DependencyCheckSummary s;
  s.checked = r.vls;
  s.channels = r.channels, s.dependencies = r.dependencies, s.channels_in_cycles = r.channels_in_cycles;
  for (const DependencyCycle& c : r.cycles) {
    s.cycles.push_back({c.vl, {}});
    for (const auto& ch : c.channels) s.cycles.back().channels.push_back(channel_name(g, ch));
  }
  return format_dependency_check(s);
}

}  // namespace ibfsim
