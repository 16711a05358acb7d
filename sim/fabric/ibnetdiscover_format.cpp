#include "sim/fabric/ibnetdiscover_format.h"

#include <fmt/format.h>

#include <cctype>
#include <limits>
#include <unordered_map>
#include <unordered_set>

#include "sim/core/error.h"
#include "sim/fabric/static_routing.h"

namespace ibfsim {

std::string node_name_from_description(std::string_view description) {
  while (!description.empty() && std::isspace(static_cast<unsigned char>(description.front()))) description.remove_prefix(1);
  while (!description.empty() && std::isspace(static_cast<unsigned char>(description.back()))) description.remove_suffix(1);
  std::string out;
  bool in_bad_run = false;
  for (char c : description) {
    const auto u = static_cast<unsigned char>(c);
    const bool ok = u > 0x20 && u < 0x7f && c != '/' && c != '"' && c != '#' && c != '@' && c != '=' && c != '\\';
    if (ok) {
      out += c;
      in_bad_run = false;
    } else if (!in_bad_run) {
      out += '_';
      in_bad_run = true;
    }
  }
  if (out.find_first_not_of('_') == std::string::npos) return "";
  return out;
}

std::vector<std::string> make_unique_names(std::vector<std::string> names) {
  std::unordered_set<std::string> used;
  used.reserve(names.size() * 2);
  for (std::string& n : names) {
    if (used.insert(n).second) continue;
    for (unsigned k = 2;; ++k) {
      std::string candidate = fmt::format("{}_{}", n, k);
      if (used.insert(candidate).second) {
        n = std::move(candidate);
        break;
      }
    }
  }
  return names;
}

std::vector<std::string> export_node_names(const Topology& topo) {
  std::vector<std::string> names;
  names.reserve(topo.nodes.size());
  for (const TopoNode& n : topo.nodes) {
    std::string name = node_name_from_description(n.name);
    if (name.empty())
      name = fmt::format("{}-{:016x}", n.type == NodeType::kSwitch ? 'S' : n.type == NodeType::kRouter ? 'R' : 'H', n.guid);
    names.push_back(std::move(name));
  }
  return make_unique_names(std::move(names));
}

namespace {

// The topology's nodes from the records: names (unique), GUIDs by dialect, the defaults for what
// the format does not carry, and ibsim's per-port enabled sets.
Topology topology_nodes(const std::vector<net_file::NodeRecord>& records, const std::string& file_name,
                        NetFileDialect dialect) {
  using namespace net_file;
  const TopologyDefaults defaults;
  Topology topo;
  topo.source_file = file_name;
  topo.propagation_per_m = defaults.propagation_per_m;
  std::vector<std::string> names;
  names.reserve(records.size());
  for (const NodeRecord& r : records) {
    std::string name = node_name_from_description(dialect == NetFileDialect::kIbnetdiscover ? r.description : r.id);
    if (name.empty()) name = node_name_from_description(r.id);
    if (name.empty()) name = fmt::format("node{}", &r - records.data() + 1);
    names.push_back(std::move(name));
  }
  names = make_unique_names(std::move(names));
  topo.nodes.reserve(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    const NodeRecord& r = records[i];
    TopoNode n;
    n.name = names[i];
    n.type = r.type;
    n.num_ports = r.num_ports;
    n.guid = dialect == NetFileDialect::kIbnetdiscover ? *guid_from_ibnetdiscover_id(r.id) : r.counter_guid;
    const bool sw = r.type != NodeType::kHca;  // a router takes the switch defaults
    if (sw) n.switch_latency = defaults.switch_latency;
    n.rx_buffer_credits = sw ? defaults.switch_buffer_credits : defaults.hca_buffer_credits;
    n.op_vls = sw ? defaults.switch_vls : defaults.hca_vls;
    n.vl15_buffer_credits = sw ? defaults.switch_vl15_buffer_credits : defaults.hca_vl15_buffer_credits;
    // ibsim's w=/s=/e= options become the ports' enabled sets; ports without them enable all.
    for (const PortLine& pl : r.ports) {
      if (!pl.widths && !pl.speeds) continue;
      if (n.port_speeds.empty()) {
        n.port_speeds.assign(n.num_ports + 1, sw ? defaults.switch_speeds : defaults.hca_speeds);
        n.port_widths.assign(n.num_ports + 1, sw ? defaults.switch_widths : defaults.hca_widths);
      }
      if (pl.widths) n.port_widths[pl.port] = *pl.widths;
      if (pl.speeds) n.port_speeds[pl.port] = *pl.speeds;
    }
    n.mark = SourceMark{file_name, r.line, 1};
    topo.nodes.push_back(std::move(n));
  }

  return topo;
}

// Its cables: every port line must be answered by the port it names; each link is made once, at
// the later of its two lines.
void add_cables(Topology& topo, const net_file::Records& read, const std::string& file_name) {
  using namespace net_file;
  const std::vector<NodeRecord>& records = read.nodes;
  const std::unordered_map<std::string, std::size_t>& by_id = read.by_id;
  const TopologyDefaults defaults;
  // [node][port] -> index into records[node].ports
  std::vector<std::vector<int>> line_at(records.size());
  for (std::size_t i = 0; i < records.size(); ++i) {
    line_at[i].assign(records[i].num_ports + 1, -1);
    for (std::size_t k = 0; k < records[i].ports.size(); ++k) line_at[i][records[i].ports[k].port] = static_cast<int>(k);
  }
  for (std::size_t i = 0; i < records.size(); ++i) {
    for (const PortLine& pl : records[i].ports) {
      LineCursor cur(std::string_view(), file_name, pl.line);
      const auto it = by_id.find(pl.remote_id);
      if (it == by_id.end()) {
        cur.fail_at(pl.remote_col, "the id of a node that has a Switch or Ca record in this file",
                    fmt::format("\"{}\", which has none", pl.remote_id));
      }
      const std::size_t j = it->second;
      const NodeRecord& remote = records[j];
      if (pl.remote_port > remote.num_ports) {
        cur.fail_at(pl.remote_port_col, fmt::format("a port of \"{}\" in 1..{}", remote.id, remote.num_ports),
                    fmt::format("{}", pl.remote_port));
      }
      const int back_index = line_at[j][pl.remote_port];
      const std::string link = fmt::format("\"{}\"[{}] to list its link back to \"{}\"[{}]", remote.id,
                                           pl.remote_port, records[i].id, pl.port);
      if (back_index < 0) {
        cur.fail_at(1, link, fmt::format("no line for port {} in its record (line {})", pl.remote_port, remote.line));
      }
      const PortLine& back = remote.ports[static_cast<std::size_t>(back_index)];
      if (back.remote_id != records[i].id || back.remote_port != pl.port) {
        cur.fail_at(1, link, fmt::format("a link to \"{}\"[{}] at line {}", back.remote_id, back.remote_port, back.line));
      }
      if (back.line < pl.line) continue;  // the cable was made at the other end's line
      if (j == i && back.line == pl.line) {
        cur.fail_at(1, "a link between two different ports", fmt::format("port {} linked to itself", pl.port));
      }
      TopoCable c;
      c.node_a = i;
      c.port_a = pl.port;
      c.node_b = j;
      c.port_b = pl.remote_port;
      LineCursor at_back(std::string_view(), file_name, back.line);
      c.rate = resolve_rate(pl, back, at_back, defaults.link_rate);
      c.length_mm = defaults.link_length_mm;
      c.mark = SourceMark{file_name, pl.line, 1};
      topo.cables.push_back(c);
    }
  }
}

}  // namespace

Topology parse_net_file(std::string_view text, const std::string& file_name, NetFileDialect dialect) {
  const net_file::Records read = net_file::read_records(text, file_name, dialect);
  Topology topo = topology_nodes(read.nodes, file_name, dialect);
  add_cables(topo, read, file_name);
  validate_topology(topo);
  return topo;
}

Topology parse_ibnetdiscover(std::string_view text, const std::string& file_name) {
  return parse_net_file(text, file_name, NetFileDialect::kIbnetdiscover);
}

// ---- writing ----

std::string write_ibnetdiscover(const Topology& topo) {
  const StaticRouting routing = compute_static_routing(topo);
  const std::vector<std::string> names = export_node_names(topo);
  const auto cables_at = topo.port_cables();
  auto is_switch = [&](std::size_t n) { return topo.nodes[n].type == NodeType::kSwitch; };
  auto id = [&](std::size_t n) {
    const NodeType t = topo.nodes[n].type;
    return fmt::format("{}-{:016x}", t == NodeType::kSwitch ? 'S' : t == NodeType::kRouter ? 'R' : 'H', topo.nodes[n].guid);
  };
  auto port_guid = [&](std::size_t n, unsigned p) { return topo.nodes[n].guid + (is_switch(n) ? 0 : p); };
  auto lid = [&](std::size_t n, unsigned p) { return routing.port_lid[n][is_switch(n) ? 0 : p]; };
  auto rate = [](const TopoCable& c) { return fmt::format("{}x{}", c.rate.lanes, c.rate.info().name); };

  std::string out = fmt::format("#\n# Topology file: generated by ibfsim {}\n#\n", IBFSIM_VERSION_STRING);
  const std::vector<std::size_t> hcas = topo.hcas();
  const std::vector<std::size_t> switches = topo.switches();
  if (!topo.nodes.empty()) {
    const std::size_t from = hcas.empty() ? switches.front() : hcas.front();
    out += fmt::format("# Initiated from node {:016x} port {:016x}\n", topo.nodes[from].guid,
                       port_guid(from, is_switch(from) ? 0 : 1));
  }
  auto ids_block = [&](std::size_t n) {
    out += fmt::format("\nvendid={:#x}\ndevid={:#x}\nsysimgguid={:#x}\n", kExportVendorId,
                       is_switch(n) ? kExportSwitchDeviceId : kExportHcaDeviceId, topo.nodes[n].guid);
  };
  for (std::size_t n : switches) {
    const TopoNode& node = topo.nodes[n];
    ids_block(n);
    out += fmt::format("switchguid={:#x}({:x})\n", node.guid, node.guid);
    out += fmt::format("Switch\t{} \"{}\"\t\t# \"{}\" enhanced port 0 lid {} lmc 0\n", node.num_ports, id(n), names[n],
                       lid(n, 0));
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (!cables_at[n][p]) continue;
      const TopoCable& c = topo.cables[*cables_at[n][p]];
      const PortRef peer = c.far_end(n);
      out += fmt::format("[{}]\t\"{}\"[{}]", p, id(peer.node), peer.port);
      if (!is_switch(peer.node)) out += fmt::format("({:x}) ", port_guid(peer.node, peer.port));
      out += fmt::format("\t\t# \"{}\" lid {} {}\n", names[peer.node], lid(peer.node, peer.port), rate(c));
    }
  }
  // End nodes: the CAs, then the routers ("Rt" records, as ibnetdiscover writes them).
  std::vector<std::size_t> end_nodes = hcas;
  for (std::size_t r : topo.routers()) end_nodes.push_back(r);
  for (std::size_t n : end_nodes) {
    const TopoNode& node = topo.nodes[n];
    const bool router = node.type == NodeType::kRouter;
    ids_block(n);
    out += fmt::format("{}={:#x}\n", router ? "rtguid" : "caguid", node.guid);
    out += fmt::format("{}\t{} \"{}\"\t\t# \"{}\"\n", router ? "Rt" : "Ca", node.num_ports, id(n), names[n]);
    for (unsigned p = 1; p <= node.num_ports; ++p) {
      if (!cables_at[n][p]) continue;
      const TopoCable& c = topo.cables[*cables_at[n][p]];
      const PortRef peer = c.far_end(n);
      out += fmt::format("[{}]({:x}) \t\"{}\"[{}]", p, port_guid(n, p), id(peer.node), peer.port);
      if (!is_switch(peer.node)) out += fmt::format(" ({:x}) ", port_guid(peer.node, peer.port));
      out += fmt::format("\t\t# lid {} lmc 0 \"{}\" lid {} {}\n", lid(n, p), names[peer.node],
                         lid(peer.node, peer.port), rate(c));
    }
  }
  return out;
}

}  // namespace ibfsim
