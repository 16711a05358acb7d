#include "sim/fabric/topology.h"

#include <fmt/format.h>

#include <cctype>
#include <unordered_map>

#include "sim/core/error.h"

namespace ibfsim {

const char* node_type_name(NodeType t) { return t == NodeType::kSwitch ? "switch" : "hca"; }

std::string SourceMark::to_string() const {
  if (file.empty()) return line > 0 ? fmt::format("topology:{}:{}", line, column) : "topology";
  if (line <= 0) return file;
  return fmt::format("{}:{}:{}", file, line, column);
}

PortRef TopoCable::far_end(std::size_t node) const {
  return node == node_a ? PortRef{node_b, port_b} : PortRef{node_a, port_a};
}

std::optional<std::size_t> Topology::find_node(std::string_view name) const {
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].name == name) return i;
  return std::nullopt;
}

std::optional<std::size_t> Topology::cable_at(std::size_t node, unsigned port) const {
  for (std::size_t i = 0; i < cables.size(); ++i) {
    const TopoCable& c = cables[i];
    if ((c.node_a == node && c.port_a == port) || (c.node_b == node && c.port_b == port)) return i;
  }
  return std::nullopt;
}

std::vector<std::vector<std::optional<std::size_t>>> Topology::port_cables() const {
  std::vector<std::vector<std::optional<std::size_t>>> table(nodes.size());
  for (std::size_t n = 0; n < nodes.size(); ++n) table[n].resize(nodes[n].num_ports + 1);
  for (std::size_t i = 0; i < cables.size(); ++i) {
    const TopoCable& c = cables[i];
    table.at(c.node_a).at(c.port_a) = i;
    table.at(c.node_b).at(c.port_b) = i;
  }
  return table;
}

std::vector<std::size_t> Topology::hcas() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].type == NodeType::kHca) out.push_back(i);
  return out;
}

std::vector<std::size_t> Topology::switches() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].type == NodeType::kSwitch) out.push_back(i);
  return out;
}

Time Topology::cable_delay(std::size_t cable) const {
  const unsigned __int128 fs_times_mm =
      static_cast<unsigned __int128>(propagation_per_m) * cables.at(cable).length_mm;
  return static_cast<Time>((fs_times_mm + 500) / 1000);
}

namespace {

[[noreturn]] void fail_at(const SourceMark& mark, std::string_view expected, std::string_view got) {
  throw InputError(fmt::format("{}: expected {}, got {}", mark.to_string(), expected, got));
}

// "line 12" for the "already ..." part of a message, empty when the position is unknown.
std::string at_line(const SourceMark& mark) {
  return mark.line > 0 ? fmt::format(" at line {}", mark.line) : std::string();
}

void check_node(const TopoNode& n) {
  bool bad_name = n.name.empty();
  for (char c : n.name) bad_name = bad_name || c == '/' || std::isspace(static_cast<unsigned char>(c));
  if (bad_name) fail_at(n.mark, "a node name without '/' or spaces", fmt::format("'{}'", n.name));
  if (n.num_ports < 1 || n.num_ports > kMaxPorts) {
    fail_at(n.mark, fmt::format("1..{} ports on {}", kMaxPorts, n.name), fmt::format("{}", n.num_ports));
  }
  if (n.guid == 0) fail_at(n.mark, fmt::format("a nonzero GUID for {}", n.name), "0");
  if (n.rx_buffer_credits == 0) fail_at(n.mark, fmt::format("at least 1 buffer credit on {}", n.name), "0");
}

}  // namespace

void validate_topology(const Topology& topo) {
  std::unordered_map<std::string_view, std::size_t> by_name;
  std::unordered_map<Guid, std::size_t> by_guid;
  for (std::size_t i = 0; i < topo.nodes.size(); ++i) {
    const TopoNode& n = topo.nodes[i];
    check_node(n);
    auto [name_it, name_new] = by_name.emplace(n.name, i);
    if (!name_new) {
      const TopoNode& first = topo.nodes[name_it->second];
      fail_at(n.mark, "a unique node name", fmt::format("'{}' again (first declared{})", n.name, at_line(first.mark)));
    }
    auto [guid_it, guid_new] = by_guid.emplace(n.guid, i);
    if (!guid_new) {
      const TopoNode& first = topo.nodes[guid_it->second];
      fail_at(n.mark, "a unique GUID",
              fmt::format("{:#018x} again (already the GUID of {}{})", n.guid, first.name, at_line(first.mark)));
    }
  }

  // [node][port] -> cable using it, to find ports used twice.
  std::vector<std::vector<std::optional<std::size_t>>> used(topo.nodes.size());
  for (std::size_t i = 0; i < topo.nodes.size(); ++i) used[i].resize(topo.nodes[i].num_ports + 1);
  std::vector<bool> switch_cabled(topo.nodes.size(), false);

  for (std::size_t ci = 0; ci < topo.cables.size(); ++ci) {
    const TopoCable& c = topo.cables[ci];
    for (std::size_t node : {c.node_a, c.node_b}) {
      if (node >= topo.nodes.size()) {
        fail_at(c.mark, fmt::format("a node index below {}", topo.nodes.size()), fmt::format("{}", node));
      }
    }
    if (c.node_a == c.node_b) {
      const std::string& name = topo.nodes[c.node_a].name;
      fail_at(c.mark, "a cable between two different nodes",
              fmt::format("{}/{} to {}/{}", name, c.port_a, name, c.port_b));
    }
    for (const PortRef end : {PortRef{c.node_a, c.port_a}, PortRef{c.node_b, c.port_b}}) {
      const TopoNode& n = topo.nodes[end.node];
      if (end.port < 1 || end.port > n.num_ports) {
        fail_at(c.mark, fmt::format("a port of {} in 1..{}", n.name, n.num_ports),
                fmt::format("{}/{}", n.name, end.port));
      }
      auto& slot = used[end.node][end.port];
      if (slot) {
        fail_at(c.mark, "a port that is not cabled yet",
                fmt::format("{}/{}, already cabled{}", n.name, end.port, at_line(topo.cables[*slot].mark)));
      }
      slot = ci;
      switch_cabled[end.node] = true;
    }
  }

  for (std::size_t i = 0; i < topo.nodes.size(); ++i) {
    const TopoNode& n = topo.nodes[i];
    if (n.type == NodeType::kSwitch && !switch_cabled[i]) {
      fail_at(n.mark, fmt::format("at least one cable on switch {}", n.name), "none");
    }
  }
}

}  // namespace ibfsim
