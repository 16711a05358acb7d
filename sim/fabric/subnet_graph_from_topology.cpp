#include "sim/fabric/subnet_graph_from_topology.h"

#include <fmt/format.h>

#include <deque>
#include <unordered_map>

#include "sim/core/error.h"

namespace ibfsim {

Guid topology_port_guid(const TopoNode& node, unsigned port) { return port_guid_of(node, port); }

TopologySubnet subnet_graph_from_topology(const Topology& topo, std::size_t sm_node, unsigned sm_port) {
  const TopoNode& sm = topo.nodes.at(sm_node);
  const bool on_switch = sm.type == NodeType::kSwitch;
  if (on_switch && sm_port != 0) {
    throw InputError(fmt::format("{}: expected the SM on switch '{}' to run on its management port 0, got port {}",
                                 sm.mark.to_string(), sm.name, sm_port));
  }
  if (!on_switch && (sm_port < 1 || sm_port > sm.num_ports)) {
    throw InputError(fmt::format("{}: expected an SM port 1..{} of HCA '{}', got {}", sm.mark.to_string(),
                                 sm.num_ports, sm.name, sm_port));
  }
  const auto cables = topo.port_cables();
  if (!on_switch && !cables[sm_node][sm_port]) {
    throw InputError(fmt::format("{}: expected the SM port {}/{} to be cabled, it is not", sm.mark.to_string(),
                                 sm.name, sm_port));
  }

  // Discovery: the SM's node, then breadth-first through switches; HCAs are leaves.
  std::vector<bool> found(topo.nodes.size(), false);
  found[sm_node] = true;
  std::deque<std::size_t> queue;
  if (on_switch) {
    queue.push_back(sm_node);
  } else {
    const PortRef first = topo.cables[*cables[sm_node][sm_port]].far_end(sm_node);
    found[first.node] = true;
    if (topo.nodes[first.node].type == NodeType::kSwitch) queue.push_back(first.node);
  }
  while (!queue.empty()) {
    const std::size_t sw = queue.front();
    queue.pop_front();
    for (unsigned p = 1; p <= topo.nodes[sw].num_ports; ++p) {
      if (!cables[sw][p]) continue;
      const PortRef far = topo.cables[*cables[sw][p]].far_end(sw);
      if (found[far.node]) continue;
      found[far.node] = true;
      if (topo.nodes[far.node].type == NodeType::kSwitch) queue.push_back(far.node);
    }
  }

  TopologySubnet out;
  out.graph_node.assign(topo.nodes.size(), kNoSubnetNode);
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    if (!found[n]) continue;
    out.graph_node[n] = out.graph.nodes.size();
    out.topo_node.push_back(n);
    const TopoNode& tn = topo.nodes[n];
    SubnetNode sn;
    sn.kind = tn.type == NodeType::kSwitch   ? SubnetNodeKind::kSwitch
              : tn.type == NodeType::kRouter ? SubnetNodeKind::kRouter
                                             : SubnetNodeKind::kCa;
    sn.node_guid = tn.guid;
    sn.system_image_guid = tn.guid;
    sn.description = tn.name;
    sn.ports.resize(tn.num_ports + 1);
    for (unsigned p = 0; p <= tn.num_ports; ++p) {
      sn.ports[p].data_vls = tn.op_vls;
      if (sn.kind == SubnetNodeKind::kSwitch ? p == 0 : p != 0) sn.ports[p].guid = topology_port_guid(tn, p);
    }
    out.graph.nodes.push_back(std::move(sn));
  }
  // Links, and port GUIDs unique among the ports discovery reaches (an HCA's uncabled ports are
  // never seen by the SM, so only cabled ones count, plus every switch's port 0).
  std::unordered_map<Guid, std::size_t> owner;  // port GUID -> topology node
  for (std::size_t g = 0; g < out.topo_node.size(); ++g) {
    const std::size_t n = out.topo_node[g];
    const TopoNode& tn = topo.nodes[n];
    for (unsigned p = 0; p <= tn.num_ports; ++p) {
      const bool is_sw = tn.type == NodeType::kSwitch;
      if (p == 0 && !is_sw) continue;
      if (p != 0) {
        if (!cables[n][p]) continue;
        const PortRef far = topo.cables[*cables[n][p]].far_end(n);
        if (out.graph_node[far.node] == kNoSubnetNode) continue;
        out.graph.nodes[g].ports[p].peer = SubnetPortRef{out.graph_node[far.node], static_cast<PortNum>(far.port)};
        if (is_sw) continue;
      }
      const Guid guid = topology_port_guid(tn, p);
      const auto [it, fresh] = owner.emplace(guid, n);
      if (!fresh) {
        const TopoNode& other = topo.nodes[it->second];
        throw InputError(fmt::format(
            "{}: expected unique port GUIDs, got {:#018x} on both '{}' ({}) and '{}' port {} (an HCA port p has "
            "the GUID node GUID + p, a switch its node GUID)",
            tn.mark.to_string(), guid, other.name, other.mark.to_string(), tn.name, p));
      }
    }
  }
  out.graph.sm_port = SubnetPortRef{out.graph_node[sm_node], static_cast<PortNum>(sm_port)};
  check_subnet_graph(out.graph);
  return out;
}

}  // namespace ibfsim
