#include "sim/fabric/ethernet_topology.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.h"

namespace ibfsim {

namespace {
constexpr std::size_t kMaxNumbered = 250;  // a switch number or port is one byte of a MAC and an IP

[[noreturn]] void refuse(const SourceMark& mark, const std::string& expected, const std::string& got) {
  throw InputError(fmt::format("{}: fabric: roce: expected {}, got {}", mark.to_string(), expected, got));
}
}  // namespace

EthernetFabricPlan ethernet_plan_from_topology(const Topology& topo, std::uint64_t seed) {
  EthernetShape shape;
  std::vector<std::size_t> switch_index(topo.nodes.size(), 0);
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    const TopoNode& node = topo.nodes[n];
    if (node.type == NodeType::kRouter)
      refuse(node.mark, "switches and HCAs only (routers join InfiniBand subnets)", "router " + node.name);
    if (node.type != NodeType::kSwitch) continue;
    if (node.num_ports > kMaxNumbered)
      refuse(node.mark, "a switch of at most 250 ports", fmt::format("{} with {}", node.name, node.num_ports));
    switch_index[n] = shape.switches.size();
    shape.switches.push_back({node.name, node.num_ports});
  }
  if (shape.switches.size() > kMaxNumbered)
    throw InputError(fmt::format("{}: fabric: roce: expected at most 250 switches, got {}", topo.source_file,
                                 shape.switches.size()));
  const Topology::PortCables cables = topo.port_cables();
  for (const std::size_t n : topo.hcas()) {
    const TopoNode& node = topo.nodes[n];
    std::size_t cabled = 0;
    std::optional<std::size_t> cable;
    for (unsigned p = 1; p <= node.num_ports; ++p)
      if (cables[n][p]) ++cabled, cable = cables[n][p];
    if (cabled != 1)
      refuse(node.mark, "an HCA with one cabled port (a host has one Ethernet port here)",
             fmt::format("{} with {}", node.name, cabled));
    const PortRef far = topo.cables[*cable].far_end(n);
    if (topo.nodes[far.node].type != NodeType::kSwitch)
      refuse(topo.cables[*cable].mark, "an HCA cabled to a switch", fmt::format("{} cabled to {}", node.name, topo.nodes[far.node].name));
    shape.hosts.push_back({node.name, switch_index[far.node], static_cast<PortNum>(far.port)});
  }
  for (const TopoCable& c : topo.cables)
    if (topo.nodes[c.node_a].type == NodeType::kSwitch && topo.nodes[c.node_b].type == NodeType::kSwitch)
      shape.links.push_back({switch_index[c.node_a], static_cast<PortNum>(c.port_a), switch_index[c.node_b],
                             static_cast<PortNum>(c.port_b)});
  return ethernet_plan(shape, seed);
}

}  // namespace ibfsim
