#include "sim/subnet_manager/sa/multicast_tree.h"

#include <algorithm>
#include <deque>
#include <set>

namespace ibfsim {

namespace {
// The switch a member hangs off and the switch port facing it (0 for the switch itself).
std::optional<SubnetPortRef> attachment(const SubnetGraph& g, SubnetPortRef m) {
  if (g.nodes.at(m.node).is_switch()) return SubnetPortRef{m.node, 0};
  const auto& peer = g.port(m).peer;
  if (!peer || !g.nodes.at(peer->node).is_switch()) return std::nullopt;
  return *peer;
}
}  // namespace

std::map<std::size_t, std::vector<PortNum>> multicast_tree(const SubnetGraph& g,
                                                           const std::vector<MulticastMember>& members) {
  std::map<std::size_t, std::set<PortNum>> ports;
  std::vector<std::pair<SubnetPortRef, bool>> at;  // (switch, port facing the member), receives
  for (const MulticastMember& m : members)
    if (auto a = attachment(g, m.port)) at.emplace_back(*a, m.receives);
  if (at.empty()) return {};
  // Breadth first over switch-to-switch links from the first member's switch.
  const std::size_t root = at.front().first.node;
  std::vector<std::optional<SubnetPortRef>> parent(g.nodes.size());  // (parent switch, its port toward us)
  std::vector<PortNum> up(g.nodes.size(), 0);                        // our port toward the parent
  std::vector<bool> seen(g.nodes.size(), false);
  seen[root] = true;
  std::deque<std::size_t> queue{root};
  while (!queue.empty()) {
    const std::size_t s = queue.front();
    queue.pop_front();
    const SubnetNode& n = g.nodes[s];
    for (PortNum p = 1; p < n.ports.size(); ++p) {
      const auto& peer = n.ports[p].peer;
      if (!peer || !g.nodes[peer->node].is_switch() || seen[peer->node]) continue;
      seen[peer->node] = true;
      parent[peer->node] = SubnetPortRef{s, p};
      up[peer->node] = peer->port;
      queue.push_back(peer->node);
    }
  }
  for (const auto& [a, receives] : at) {
    if (!seen[a.node]) continue;
    ports[a.node];  // on the tree even when it only sends
    if (receives && a.port != 0) ports[a.node].insert(a.port);
    if (receives && a.port == 0) ports[a.node].insert(0);
    // Up to the root, marking both ends of each tree link (stop where the way is marked already).
    for (std::size_t s = a.node; parent[s]; s = parent[s]->node) {
      const SubnetPortRef pr = *parent[s];
      if (ports[s].count(up[s])) break;
      ports[s].insert(up[s]);
      ports[pr.node].insert(pr.port);
    }
  }
  std::map<std::size_t, std::vector<PortNum>> out;
  for (const auto& [s, set] : ports) out[s] = std::vector<PortNum>(set.begin(), set.end());
  return out;
}

}  // namespace ibfsim
