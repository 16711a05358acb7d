#include "sim/subnet_manager/routing/subnet_graph.h"

#include <fmt/format.h>

#include <algorithm>
#include <unordered_set>

#include "sim/core/error.h"

namespace ibfsim {

Guid SubnetGraph::port_guid(SubnetPortRef r) const {
  const SubnetNode& n = nodes.at(r.node);
  return n.is_switch() ? n.ports.at(0).guid : n.ports.at(r.port).guid;
}

SubnetPortRef SubnetGraph::lid_port(SubnetPortRef r) const {
  return nodes.at(r.node).is_switch() ? SubnetPortRef{r.node, 0} : r;
}

std::optional<std::size_t> SubnetGraph::find_node_by_guid(Guid node_guid) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].node_guid == node_guid) return i;
  return std::nullopt;
}

std::optional<std::size_t> SubnetGraph::find_node(std::string_view description) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].description == description) return i;
  return std::nullopt;
}

std::vector<std::size_t> SubnetGraph::switches() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].is_switch()) out.push_back(i);
  return out;
}

std::vector<std::size_t> SubnetGraph::cas() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (!nodes[i].is_switch()) out.push_back(i);
  return out;
}

Lid SubnetGraph::max_lid() const {
  Lid top = 0;
  for (const SubnetNode& n : nodes)
    for (const SubnetPort& p : n.ports)
      if (p.lids.assigned()) top = std::max(top, p.lids.last);
  return top;
}

bool SubnetGraph::sm_linked() const {
  if (!sm_port.valid() || sm_port.node >= nodes.size()) return false;
  const SubnetNode& n = nodes[sm_port.node];
  if (!n.is_switch()) return sm_port.port < n.ports.size() && n.ports[sm_port.port].peer.has_value();
  for (const SubnetPort& p : n.ports)
    if (p.peer) return true;
  return false;
}

void check_subnet_graph(const SubnetGraph& g) {
  std::unordered_set<Guid> node_guids, port_guids;
  for (std::size_t i = 0; i < g.nodes.size(); ++i) {
    const SubnetNode& n = g.nodes[i];
    IBFSIM_CHECK(n.ports.size() >= 2 && n.ports.size() <= 255, fmt::format("node {} has {} port entries", i, n.ports.size()));
    IBFSIM_CHECK(n.node_guid != 0 && node_guids.insert(n.node_guid).second,
                 fmt::format("node {} ('{}') GUID {:#018x} zero or not unique", i, n.description, n.node_guid));
    for (unsigned p = 0; p <= n.num_ports(); ++p) {
      const SubnetPort& port = n.ports[p];
      const bool has_guid = n.is_switch() ? p == 0 : p != 0;
      if (has_guid) {
        IBFSIM_CHECK(port.guid != 0 && port_guids.insert(port.guid).second,
                     fmt::format("port {}/{} GUID {:#018x} zero or not unique", n.description, p, port.guid));
      }
      if (!port.peer) continue;
      IBFSIM_CHECK(p != 0, fmt::format("port 0 of {} has a link", n.description));
      const SubnetPortRef peer = *port.peer;
      IBFSIM_CHECK(peer.node < g.nodes.size() && peer.port >= 1 && peer.port <= g.nodes[peer.node].num_ports(),
                   fmt::format("port {}/{} links to a missing port", n.description, p));
      const auto& back = g.nodes[peer.node].ports[peer.port].peer;
      IBFSIM_CHECK(back && back->node == i && back->port == p,
                   fmt::format("link {}/{} is not symmetric", n.description, p));
    }
  }
  const bool on_switch = g.sm_port.valid() && g.sm_port.node < g.nodes.size() && g.nodes[g.sm_port.node].is_switch();
  IBFSIM_CHECK(on_switch ? g.sm_port.port == 0
                         : g.sm_port.valid() && g.sm_port.node < g.nodes.size() && g.sm_port.port >= 1 &&
                               g.sm_port.port <= g.nodes[g.sm_port.node].num_ports() && g.port(g.sm_port).peer,
               "the SM port is neither a linked HCA port nor a switch's port 0");
}

}  // namespace ibfsim
