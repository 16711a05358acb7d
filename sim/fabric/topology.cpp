#include "sim/fabric/topology.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <numeric>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/fabric/topology_port_parts.h"

namespace ibfsim {

const char* node_type_name(NodeType t) {
  return t == NodeType::kSwitch ? "switch" : t == NodeType::kRouter ? "router" : "hca";
}

namespace {
constexpr unsigned kWidthsAscending[] = {1, 2, 4, 8, 12};
constexpr LinkSpeed kSpeedsAscending[] = {LinkSpeed::kSdr, LinkSpeed::kDdr, LinkSpeed::kQdr, LinkSpeed::kFdr10,
                                          LinkSpeed::kFdr, LinkSpeed::kEdr, LinkSpeed::kHdr, LinkSpeed::kNdr,
                                          LinkSpeed::kXdr};
}  // namespace

std::optional<LinkSpeed> best_speed(SpeedSet s) {
  std::optional<LinkSpeed> best;
  for (LinkSpeed sp : kSpeedsAscending)
    if (s & speed_bit(sp)) best = sp;
  return best;
}

std::optional<unsigned> best_width(WidthSet w) {
  std::optional<unsigned> best;
  for (unsigned lanes : kWidthsAscending)
    if (w & width_bit(lanes)) best = lanes;
  return best;
}

std::string speed_set_names(SpeedSet s) {
  std::string out;
  for (LinkSpeed sp : kSpeedsAscending) {
    if (!(s & speed_bit(sp))) continue;
    if (!out.empty()) out += ", ";
    out += link_speed_info(sp).name;
  }
  return out.empty() ? "none" : out;
}

std::string width_set_names(WidthSet w) {
  std::string out;
  for (unsigned lanes : kWidthsAscending) {
    if (!(w & width_bit(lanes))) continue;
    if (!out.empty()) out += ", ";
    out += fmt::format("{}x", lanes);
  }
  return out.empty() ? "none" : out;
}

bool is_valid_data_vl_count(unsigned vls) { return portinfo_vl_code(vls) != 0; }

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

std::vector<std::size_t> Topology::routers() const {
  std::vector<std::size_t> out;
  for (std::size_t i = 0; i < nodes.size(); ++i)
    if (nodes[i].type == NodeType::kRouter) out.push_back(i);
  return out;
}

Time Topology::cable_delay(std::size_t cable) const {
  const unsigned __int128 fs_times_mm =
      static_cast<unsigned __int128>(propagation_per_m) * cables.at(cable).length_mm;
  return static_cast<Time>((fs_times_mm + 500) / 1000);
}

std::vector<std::optional<std::size_t>> Topology::server_of() const {
  std::vector<std::optional<std::size_t>> out(nodes.size());
  for (std::size_t s = 0; s < servers.size(); ++s)
    for (std::size_t h : servers[s].hosts)
      if (h < out.size()) out[h] = s;
  return out;
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
  if (!is_valid_data_vl_count(n.op_vls)) {
    fail_at(n.mark, fmt::format("1, 2, 4, 8 or 15 data VLs on {}", n.name), fmt::format("{}", n.op_vls));
  }
  if (n.vl15_buffer_credits < kMinVl15Credits) {
    fail_at(n.mark, fmt::format("at least {} VL15 buffer credits on {} (one 290-byte SMP)", kMinVl15Credits, n.name),
            fmt::format("{}", n.vl15_buffer_credits));
  }
  auto check_sets = [&](const auto& sets, unsigned all, const char* what) {
    if (sets.empty()) return;
    if (sets.size() != n.num_ports + 1u) {
      fail_at(n.mark, fmt::format("{} {} sets on {} (ports 0..{})", n.num_ports + 1, what, n.name, n.num_ports),
              fmt::format("{}", sets.size()));
    }
    for (unsigned p = 0; p <= n.num_ports; ++p) {
      if (sets[p] == 0 || (sets[p] & ~all) != 0) {
        fail_at(n.mark, fmt::format("a nonempty {} set on {}/{}", what, n.name, p),
                fmt::format("{:#04x}", static_cast<unsigned>(sets[p])));
      }
    }
  };
  check_sets(n.port_speeds, kAllSpeeds, "speed");
  check_sets(n.port_widths, kAllWidths, "width");
}

// "NODE/PORT".
std::string port_name(const Topology& topo, PortRef end) {
  return fmt::format("{}/{}", topo.nodes[end.node].name, end.port);
}

// Checks that the cable's speed and width are enabled at both ends (ports already checked).
void check_cable_rate(const Topology& topo, const TopoCable& c) {
  if (c.ethernet_speed) return;  // the enabled sets are InfiniBand's (PortInfo)
  for (const PortRef end : {PortRef{c.node_a, c.port_a}, PortRef{c.node_b, c.port_b}}) {
    const TopoNode& n = topo.nodes[end.node];
    const SpeedSet speeds = n.enabled_speeds(end.port);
    if (!(speeds & speed_bit(c.rate.speed))) {
      fail_at(c.mark, "a cable speed enabled at both ends",
              fmt::format("{}, not enabled at {} (enabled: {})", c.rate.info().name, port_name(topo, end),
                          speed_set_names(speeds)));
    }
    const WidthSet widths = n.enabled_widths(end.port);
    if (!(widths & width_bit(c.rate.lanes))) {
      fail_at(c.mark, "a cable width enabled at both ends",
              fmt::format("{}x, not enabled at {} (enabled: {})", c.rate.lanes, port_name(topo, end),
                          width_set_names(widths)));
    }
  }
}

// Up to 10 node names, then "and N more".
std::string name_list(const Topology& topo, const std::vector<std::size_t>& nodes) {
  constexpr std::size_t kShown = 10;
  std::string out;
  for (std::size_t i = 0; i < nodes.size() && i < kShown; ++i) {
    if (i > 0) out += ", ";
    out += topo.nodes[nodes[i]].name;
  }
  if (nodes.size() > kShown) out += fmt::format(" and {} more", nodes.size() - kShown);
  return out;
}

// Servers: named once, nonempty, of HCAs, each host in at most one (the YAML reader says the same
// with the position of the entry; this catches topologies built in code).
void check_servers(const Topology& topo) {
  std::unordered_map<std::string_view, std::size_t> by_name;
  std::vector<std::optional<std::size_t>> owner(topo.nodes.size());
  for (std::size_t s = 0; s < topo.servers.size(); ++s) {
    const TopoServer& sv = topo.servers[s];
    if (!by_name.emplace(sv.name, s).second) fail_at(sv.mark, "a unique server name", fmt::format("'{}' again", sv.name));
    if (sv.hosts.empty()) fail_at(sv.mark, fmt::format("at least one HCA in server {}", sv.name), "none");
    for (std::size_t h : sv.hosts) {
      if (h >= topo.nodes.size())
        fail_at(sv.mark, fmt::format("a node index below {}", topo.nodes.size()), fmt::format("{}", h));
      const TopoNode& n = topo.nodes[h];
      if (n.type != NodeType::kHca)
        fail_at(sv.mark, "HCAs in a server", fmt::format("{} {}", node_type_name(n.type), n.name));
      if (owner[h])
        fail_at(sv.mark, "each HCA in at most one server",
                fmt::format("{} in {} and {}", n.name, topo.servers[*owner[h]].name, sv.name));
      owner[h] = s;
    }
  }
}

}  // namespace

void validate_topology(const Topology& topo) {
  if (topo.nodes.empty())
    throw InputError(fmt::format("{}: expected a topology with at least one node, got none",
                                 topo.source_file.empty() ? std::string("topology") : topo.source_file));
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
  // Port GUIDs (port_guid_of) must be unique too: a subnet manager tells ports apart by them
  // (OpenSM drops a port whose GUID it has seen, ERR 0D15).
  std::unordered_map<Guid, PortRef> by_port_guid;
  for (std::size_t i = 0; i < topo.nodes.size(); ++i) {
    const TopoNode& n = topo.nodes[i];
    const unsigned first_port = n.type == NodeType::kSwitch ? 0 : 1;
    const unsigned last_port = n.type == NodeType::kSwitch ? 0 : n.num_ports;
    for (unsigned p = first_port; p <= last_port; ++p) {
      const Guid g = port_guid_of(n, p);
      auto [it, fresh] = by_port_guid.emplace(g, PortRef{i, p});
      if (fresh) continue;
      const TopoNode& first = topo.nodes[it->second.node];
      fail_at(n.mark, "unique port GUIDs (an HCA or router port p has node GUID + p, a switch its node GUID)",
              fmt::format("{:#018x} for {} port {} again (already port {} of {}{})", g, n.name, p, it->second.port,
                          first.name, at_line(first.mark)));
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
    if (topo.nodes[c.node_a].type == NodeType::kRouter && topo.nodes[c.node_b].type == NodeType::kRouter) {
      // Each router port is an end port of a subnet; two back to back would be a subnet of two
      // routers and nothing else.
      fail_at(c.mark, "a router cabled to a switch or an HCA",
              fmt::format("{}/{} to router {}/{}", topo.nodes[c.node_a].name, c.port_a, topo.nodes[c.node_b].name,
                          c.port_b));
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
    check_cable_rate(topo, c);
  }

  for (std::size_t i = 0; i < topo.nodes.size(); ++i) {
    const TopoNode& n = topo.nodes[i];
    if (n.type != NodeType::kHca && !switch_cabled[i]) {
      fail_at(n.mark, fmt::format("at least one cable on {} {}", node_type_name(n.type), n.name), "none");
    }
  }
  check_servers(topo);
}

std::vector<std::size_t> unreachable_nodes(const Topology& topo) {
  const std::size_t num_nodes = topo.nodes.size();
  if (num_nodes == 0) return {};
  TopologyPortParts p(topo);
  // A router forwards between its ports' subnets: they are one part for reachability.
  for (std::size_t n = 0; n < num_nodes; ++n)
    if (topo.nodes[n].type == NodeType::kRouter)
      for (std::size_t e = p.first(n) + 1; e < p.end(n); ++e) p.join(p.first(n), e);
  // The distinct parts each node has an element in, and the number of nodes in each part.
  std::vector<std::vector<std::size_t>> parts_of(num_nodes);
  std::vector<std::size_t> nodes_in(p.elements(), 0);
  for (std::size_t n = 0; n < num_nodes; ++n) {
    std::vector<std::size_t>& parts = parts_of[n];
    for (std::size_t e = p.first(n); e < p.end(n); ++e) {
      const std::size_t root = p.find(e);
      if (std::find(parts.begin(), parts.end(), root) == parts.end()) parts.push_back(root);
    }
    for (std::size_t root : parts) ++nodes_in[root];
  }
  std::size_t main_part = parts_of[0].front();
  for (std::size_t n = 0; n < num_nodes; ++n)
    for (std::size_t root : parts_of[n])
      if (nodes_in[root] > nodes_in[main_part]) main_part = root;
  std::vector<std::size_t> out;
  for (std::size_t n = 0; n < num_nodes; ++n) {
    const auto& parts = parts_of[n];
    if (std::find(parts.begin(), parts.end(), main_part) == parts.end()) out.push_back(n);
  }
  return out;
}

std::vector<std::string> topology_warnings(const Topology& topo) {
  std::vector<std::string> out;
  const std::vector<std::size_t> cut_off = unreachable_nodes(topo);
  if (!cut_off.empty()) {
    out.push_back(fmt::format("{}: the fabric is not connected: {} of {} nodes cannot reach the rest: {}",
                              topo.nodes[cut_off.front()].mark.to_string(), cut_off.size(), topo.nodes.size(),
                              name_list(topo, cut_off)));
  }
  for (const TopoCable& c : topo.cables) {
    if (c.ethernet_speed) continue;  // no InfiniBand link training on an Ethernet cable
    const PortRef a{c.node_a, c.port_a};
    const PortRef b{c.node_b, c.port_b};
    const SpeedSet sa = topo.nodes[a.node].enabled_speeds(a.port);
    const SpeedSet sb = topo.nodes[b.node].enabled_speeds(b.port);
    const auto common_speed = best_speed(sa & sb);
    if (common_speed && *common_speed < *best_speed(sa) && *common_speed < *best_speed(sb)) {
      out.push_back(fmt::format(
          "{}: the link {} - {} will negotiate down to {}, the best speed both ends enable ({} enables up to {}, {} up "
          "to {})",
          c.mark.to_string(), port_name(topo, a), port_name(topo, b), link_speed_info(*common_speed).name,
          port_name(topo, a), link_speed_info(*best_speed(sa)).name, port_name(topo, b),
          link_speed_info(*best_speed(sb)).name));
    }
    const WidthSet wa = topo.nodes[a.node].enabled_widths(a.port);
    const WidthSet wb = topo.nodes[b.node].enabled_widths(b.port);
    const auto common_width = best_width(wa & wb);
    if (common_width && *common_width < *best_width(wa) && *common_width < *best_width(wb)) {
      out.push_back(fmt::format(
          "{}: the link {} - {} will negotiate down to {}x, the best width both ends enable ({} enables up to {}x, {} "
          "up to {}x)",
          c.mark.to_string(), port_name(topo, a), port_name(topo, b), *common_width, port_name(topo, a),
          *best_width(wa), port_name(topo, b), *best_width(wb)));
    }
  }
  return out;
}

void require_connected(const Topology& topo) {
  const std::vector<std::size_t> cut_off = unreachable_nodes(topo);
  if (cut_off.empty()) return;
  fail_at(topo.nodes[cut_off.front()].mark, "a connected fabric (every node reachable through switches)",
          fmt::format("{} node{} cut off from the rest: {}", cut_off.size(), cut_off.size() == 1 ? "" : "s",
                      name_list(topo, cut_off)));
}

const char* switch_kind_name(SwitchKind k) {
  switch (k) {
    case SwitchKind::kInfiniband: return "infiniband";
    case SwitchKind::kEthernet: return "ethernet";
    case SwitchKind::kUnstated: break;
  }
  return "";
}

}  // namespace ibfsim
