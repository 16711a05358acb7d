#include "sim/fabric/ethernet_deadlock_check.h"

#include <algorithm>
#include <map>
#include <utility>

#include <boost/graph/strong_components.hpp>
#include <fmt/format.h>

#include "sim/subnet_manager/routing/dependency_cycle.h"

namespace ibfsim {

EthernetDeadlockReport check_ethernet_deadlock(const EthernetFabricPlan& plan, const std::vector<unsigned>& priorities) {
  // The far end of every port, and a channel number per cabled port (the direction leaving it).
  std::vector<std::vector<std::pair<std::size_t, PortNum>>> peer(plan.nodes.size());
  for (std::size_t n = 0; n < plan.nodes.size(); ++n) peer[n].assign(plan.nodes[n].num_ports(), {plan.nodes.size(), 0});
  for (const EthernetCablePlan& c : plan.cables) {
    peer[c.a][c.a_port - 1] = {c.b, c.b_port};
    peer[c.b][c.b_port - 1] = {c.a, c.a_port};
  }
  std::vector<EthernetChannel> channels;
  std::map<std::pair<std::size_t, PortNum>, std::size_t> channel_of;
  for (std::size_t n = 0; n < plan.nodes.size(); ++n)
    for (PortNum p = 1; p <= plan.nodes[n].num_ports(); ++p)
      if (peer[n][p - 1].first < plan.nodes.size()) {
        channel_of[{n, p}] = channels.size();
        channels.push_back({n, p, peer[n][p - 1].first, peer[n][p - 1].second});
      }

  std::vector<bool> used(channels.size(), false);
  std::vector<std::pair<std::size_t, std::size_t>> deps;
  const std::vector<std::size_t> hosts = plan.hosts();
  for (const std::size_t src : hosts) {
    const auto first = channel_of.find({src, 1});
    if (first == channel_of.end()) continue;
    for (const std::size_t dst : hosts) {
      if (dst == src) continue;
      // Every channel a frame to dst may hold, from the source's own; each visited once per destination.
      std::vector<bool> seen(channels.size(), false);
      std::vector<std::size_t> todo{first->second};
      seen[first->second] = true;
      while (!todo.empty()) {
        const std::size_t c = todo.back();
        todo.pop_back();
        used[c] = true;
        const std::size_t sw = channels[c].to;
        if (!plan.nodes[sw].is_switch) continue;  // arrived at a host (the destination)
        const NextHops* hops = plan.nodes[sw].routes.lookup(plan.nodes[dst].ip);
        if (hops == nullptr) continue;  // dropped: holds nothing further
        for (const PortNum p : *hops) {
          const auto next = channel_of.find({sw, p});
          if (next == channel_of.end()) continue;
          deps.emplace_back(c, next->second);
          if (!seen[next->second]) {
            seen[next->second] = true;
            todo.push_back(next->second);
          }
        }
      }
    }
  }
  std::sort(deps.begin(), deps.end());
  deps.erase(std::unique(deps.begin(), deps.end()), deps.end());

  EthernetDeadlockReport r;
  r.channels = static_cast<std::size_t>(std::count(used.begin(), used.end(), true));
  r.priorities = priorities;
  std::sort(r.priorities.begin(), r.priorities.end());
  r.priorities.erase(std::unique(r.priorities.begin(), r.priorities.end()), r.priorities.end());
  DependencyGraph graph(channels.size());
  for (const auto& [a, b] : deps) boost::add_edge(a, b, graph);
  std::vector<int> component(channels.size());
  const int count = channels.empty() ? 0 : boost::strong_components(graph, component.data());
  std::vector<std::size_t> size(static_cast<std::size_t>(count), 0);
  for (int c : component) ++size[static_cast<std::size_t>(c)];
  std::size_t in_cycles = 0;
  for (std::size_t v = 0; v < channels.size(); ++v)
    if (size[static_cast<std::size_t>(component[v])] > 1) ++in_cycles;
  const std::vector<std::size_t> cycle = find_dependency_cycle(graph);
  // Frames of every priority follow the same routes: the same graph per priority.
  for (const unsigned prio : r.priorities) {
    r.dependencies += deps.size();
    r.channels_in_cycles += in_cycles;
    if (cycle.empty()) continue;
    EthernetDependencyCycle c;
    c.priority = prio;
    for (std::size_t v : cycle) c.channels.push_back(channels[v]);
    r.cycles.push_back(std::move(c));
  }
  return r;
}

std::string ethernet_channel_name(const EthernetFabricPlan& plan, const EthernetChannel& c) {
  return fmt::format("{}/{} -> {}/{}", plan.nodes[c.from].name, c.from_port, plan.nodes[c.to].name, c.to_port);
}

std::string format_ethernet_deadlock_report(const EthernetFabricPlan& plan, const EthernetDeadlockReport& r) {
  DependencyCheckSummary s;
  s.lane = "priority", s.lanes = "priorities";
  s.checked = r.priorities;
  s.channels = r.channels, s.dependencies = r.dependencies, s.channels_in_cycles = r.channels_in_cycles;
  for (const EthernetDependencyCycle& c : r.cycles) {
    s.cycles.push_back({c.priority, {}});
    for (const EthernetChannel& ch : c.channels) s.cycles.back().channels.push_back(ethernet_channel_name(plan, ch));
  }
  return format_dependency_check(s);
}

}  // namespace ibfsim
