#include "sim/fabric/ethernet_topology.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/phy/fec.h"

namespace ibfsim {

namespace {
constexpr std::size_t kMaxNumbered = 250;  // a switch number or port is one byte of a MAC and an IP

[[noreturn]] void refuse(const SourceMark& mark, const std::string& expected, const std::string& got) {
  throw InputError(fmt::format("{}: fabric: roce: expected {}, got {}", mark.to_string(), expected, got));
}
}  // namespace

EthernetCableOwn ethernet_cable_own(const Topology& topo, std::size_t k, const EthernetRate& fabric_rate) {
  const TopoCable& c = topo.cables.at(k);
  if (!c.ethernet_speed) return {};
  const EthernetSpeedInfo& info = ethernet_speed_info(*c.ethernet_speed);
  const bool fec = c.fec.value_or(fabric_rate.fec);
  if (!fec && info.fec_required)
    refuse(c.mark, fmt::format("fec: on on a cable of {} (it always runs {}; roce.fec is false)", info.name,
                               fec_code_name(info.fec)),
           fmt::format("a {} cable that says nothing of FEC", info.name));
  EthernetCableOwn own;
  own.rate = EthernetRate{*c.ethernet_speed, fec};
  own.propagation = topo.cable_delay(k);
  return own;
}

EthernetFabricPlan ethernet_plan_from_topology(const Topology& topo, std::uint64_t seed, const EthernetRate& fabric_rate) {
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
    shape.hosts.push_back({node.name, switch_index[far.node], static_cast<PortNum>(far.port),
                           ethernet_cable_own(topo, *cable, fabric_rate)});
  }
  for (std::size_t k = 0; k < topo.cables.size(); ++k) {
    const TopoCable& c = topo.cables[k];
    if (topo.nodes[c.node_a].type == NodeType::kSwitch && topo.nodes[c.node_b].type == NodeType::kSwitch)
      shape.links.push_back({switch_index[c.node_a], static_cast<PortNum>(c.port_a), switch_index[c.node_b],
                             static_cast<PortNum>(c.port_b), ethernet_cable_own(topo, k, fabric_rate)});
  }
  return ethernet_plan(shape, seed);
}

}  // namespace ibfsim
