#include "sim/fabric/topology_generators.h"

#include <fmt/format.h>

#include <stdexcept>

namespace ibfsim {

namespace {

TopoNode make_node(std::string name, NodeType type, unsigned ports, std::size_t index,
                   const TopologyDefaults& d) {
  TopoNode n;
  n.name = std::move(name);
  n.type = type;
  n.num_ports = ports;
  n.guid = default_guid(index);
  n.switch_latency = type == NodeType::kSwitch ? d.switch_latency : 0;
  n.rx_buffer_credits = type == NodeType::kSwitch ? d.switch_buffer_credits : d.hca_buffer_credits;
  return n;
}

unsigned switch_ports(const char* role, unsigned needed, const TopologyDefaults& d) {
  if (needed > kMaxPorts) {
    throw std::invalid_argument(
        fmt::format("at most {} ports per switch, got {} switches needing {}", kMaxPorts, role, needed));
  }
  if (d.switch_ports && *d.switch_ports < needed) {
    throw std::invalid_argument(fmt::format("{} switches with at least {} ports, got {} ports (defaults.switch.ports)",
                                            role, needed, *d.switch_ports));
  }
  return d.switch_ports.value_or(needed);
}

}  // namespace

Topology generate_leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf,
                             const TopologyDefaults& defaults) {
  if (leaves == 0 || spines == 0 || hosts_per_leaf == 0) {
    throw std::invalid_argument(fmt::format("at least one leaf, spine and host per leaf, got {}, {} and {}",
                                            leaves, spines, hosts_per_leaf));
  }
  const unsigned leaf_ports = switch_ports("leaf", hosts_per_leaf + spines, defaults);
  const unsigned spine_ports = switch_ports("spine", leaves, defaults);

  Topology topo;
  topo.propagation_per_m = defaults.propagation_per_m;
  const std::size_t hosts = static_cast<std::size_t>(leaves) * hosts_per_leaf;
  topo.nodes.reserve(hosts + leaves + spines);
  for (std::size_t h = 0; h < hosts; ++h) {
    topo.nodes.push_back(make_node(fmt::format("h{}", h + 1), NodeType::kHca, defaults.hca_ports,
                                   topo.nodes.size(), defaults));
  }
  const std::size_t first_leaf = topo.nodes.size();
  for (unsigned l = 0; l < leaves; ++l) {
    topo.nodes.push_back(make_node(fmt::format("leaf{}", l + 1), NodeType::kSwitch, leaf_ports,
                                   topo.nodes.size(), defaults));
  }
  const std::size_t first_spine = topo.nodes.size();
  for (unsigned s = 0; s < spines; ++s) {
    topo.nodes.push_back(make_node(fmt::format("spine{}", s + 1), NodeType::kSwitch, spine_ports,
                                   topo.nodes.size(), defaults));
  }

  auto cable = [&](std::size_t a, unsigned pa, std::size_t b, unsigned pb) {
    TopoCable c;
    c.node_a = a;
    c.port_a = pa;
    c.node_b = b;
    c.port_b = pb;
    c.rate = defaults.link_rate;
    c.length_mm = defaults.link_length_mm;
    topo.cables.push_back(c);
  };
  topo.cables.reserve(hosts + static_cast<std::size_t>(leaves) * spines);
  for (unsigned l = 0; l < leaves; ++l) {
    for (unsigned i = 0; i < hosts_per_leaf; ++i) {
      cable(static_cast<std::size_t>(l) * hosts_per_leaf + i, 1, first_leaf + l, i + 1);
    }
  }
  for (unsigned l = 0; l < leaves; ++l) {
    for (unsigned s = 0; s < spines; ++s) cable(first_leaf + l, hosts_per_leaf + s + 1, first_spine + s, l + 1);
  }
  return topo;
}

}  // namespace ibfsim
