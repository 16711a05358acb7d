#include "sim/fabric/topology_yaml_writer.h"

#include <fmt/format.h>
#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <map>
#include <sstream>

namespace ibfsim {

namespace {

constexpr LinkSpeed kSpeeds[] = {LinkSpeed::kSdr, LinkSpeed::kDdr, LinkSpeed::kQdr, LinkSpeed::kFdr10,
                                 LinkSpeed::kFdr, LinkSpeed::kEdr, LinkSpeed::kHdr, LinkSpeed::kNdr, LinkSpeed::kXdr};
constexpr unsigned kWidths[] = {1, 2, 4, 8, 12};

// The most common value of `values`; ties go to the one seen first. `fallback` when empty.
template <typename T>
T most_common(const std::vector<T>& values, T fallback) {
  std::map<T, std::size_t> count;
  std::vector<T> order;
  for (const T& v : values)
    if (count[v]++ == 0) order.push_back(v);
  T best = fallback;
  std::size_t most = 0;
  for (const T& v : order)
    if (count[v] > most) best = v, most = count[v];
  return best;
}

void emit_speeds(YAML::Emitter& e, SpeedSet s) {
  e << YAML::Flow << YAML::BeginSeq;
  for (LinkSpeed sp : kSpeeds)
    if (s & speed_bit(sp)) e << link_speed_info(sp).name;
  e << YAML::EndSeq;
}

void emit_widths(YAML::Emitter& e, WidthSet w) {
  e << YAML::Flow << YAML::BeginSeq;
  for (unsigned lanes : kWidths)
    if (w & width_bit(lanes)) e << fmt::format("{}x", lanes);
  e << YAML::EndSeq;
}

// The settings a node has that `defaults` may give.
struct NodeSettings {
  unsigned ports = 1;
  Time latency = 0;
  std::uint32_t buffer_credits = 0, vl15 = 0;
  unsigned vls = 0;
  SpeedSet speeds = kAllSpeeds;
  WidthSet widths = kAllWidths;
};

NodeSettings settings_of(const TopoNode& n) {
  return {n.num_ports, n.switch_latency, n.rx_buffer_credits, n.vl15_buffer_credits, n.op_vls, n.enabled_speeds(0),
          n.enabled_widths(0)};
}

template <typename F>
auto common(const Topology& topo, NodeType type, F field, decltype(field(NodeSettings{})) fallback) {
  std::vector<decltype(field(NodeSettings{}))> v;
  for (const TopoNode& n : topo.nodes)
    if (n.type == type) v.push_back(field(settings_of(n)));
  return most_common(v, fallback);
}

}  // namespace

std::string topology_duration_text(Time t) {
  static const std::pair<Time, const char*> units[] = {{kSec, "s"}, {kMs, "ms"}, {kUs, "us"},
                                                       {kNs, "ns"}, {kPs, "ps"}, {1, "fs"}};
  for (const auto& [scale, name] : units)
    if (t % scale == 0) return fmt::format("{}{}", t / scale, name);
  return fmt::format("{}fs", t);
}

std::string topology_length_text(std::uint32_t mm) {
  if (mm % 1000 == 0) return fmt::format("{}m", mm / 1000);
  if (mm % 10 == 0) return fmt::format("{}cm", mm / 10);
  return fmt::format("{}mm", mm);
}

std::string write_topology_yaml(const Topology& topo, const std::string& comment) {
  // Defaults: the most common value of each setting.
  const TopologyDefaults built_in;
  NodeSettings sw, hca;
  sw.ports = common(topo, NodeType::kSwitch, [](const NodeSettings& s) { return s.ports; }, kDefaultSwitchPorts);
  sw.latency = common(topo, NodeType::kSwitch, [](const NodeSettings& s) { return s.latency; }, built_in.switch_latency);
  sw.buffer_credits =
      common(topo, NodeType::kSwitch, [](const NodeSettings& s) { return s.buffer_credits; }, built_in.switch_buffer_credits);
  sw.vl15 = common(topo, NodeType::kSwitch, [](const NodeSettings& s) { return s.vl15; }, built_in.switch_vl15_buffer_credits);
  sw.vls = common(topo, NodeType::kSwitch, [](const NodeSettings& s) { return s.vls; }, built_in.switch_vls);
  sw.speeds = common(topo, NodeType::kSwitch, [](const NodeSettings& s) { return s.speeds; }, kAllSpeeds);
  sw.widths = common(topo, NodeType::kSwitch, [](const NodeSettings& s) { return s.widths; }, kAllWidths);
  hca.ports = common(topo, NodeType::kHca, [](const NodeSettings& s) { return s.ports; }, built_in.hca_ports);
  hca.buffer_credits =
      common(topo, NodeType::kHca, [](const NodeSettings& s) { return s.buffer_credits; }, built_in.hca_buffer_credits);
  hca.vl15 = common(topo, NodeType::kHca, [](const NodeSettings& s) { return s.vl15; }, built_in.hca_vl15_buffer_credits);
  hca.vls = common(topo, NodeType::kHca, [](const NodeSettings& s) { return s.vls; }, built_in.hca_vls);
  hca.speeds = common(topo, NodeType::kHca, [](const NodeSettings& s) { return s.speeds; }, kAllSpeeds);
  hca.widths = common(topo, NodeType::kHca, [](const NodeSettings& s) { return s.widths; }, kAllWidths);
  std::vector<std::pair<int, unsigned>> rates;
  std::vector<std::uint32_t> lengths;
  for (const TopoCable& c : topo.cables) {
    rates.emplace_back(static_cast<int>(c.rate.speed), c.rate.lanes);
    lengths.push_back(c.length_mm);
  }
  const auto rate = most_common(rates, {static_cast<int>(built_in.link_rate.speed), built_in.link_rate.lanes});
  const std::uint32_t length = most_common(lengths, built_in.link_length_mm);

  YAML::Emitter e;
  e << YAML::BeginMap;
  e << YAML::Key << "defaults" << YAML::Value << YAML::BeginMap;
  e << YAML::Key << "link" << YAML::Value << YAML::Flow << YAML::BeginMap << YAML::Key << "speed" << YAML::Value
    << link_speed_info(static_cast<LinkSpeed>(rate.first)).name << YAML::Key << "width" << YAML::Value
    << fmt::format("{}x", rate.second) << YAML::Key << "length" << YAML::Value << topology_length_text(length)
    << YAML::EndMap;
  auto emit_defaults = [&](const char* key, const NodeSettings& s, bool is_switch) {
    e << YAML::Key << key << YAML::Value << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "ports" << YAML::Value << s.ports;
    if (is_switch) e << YAML::Key << "latency" << YAML::Value << topology_duration_text(s.latency);
    e << YAML::Key << "buffer_credits" << YAML::Value << s.buffer_credits;
    e << YAML::Key << "vls" << YAML::Value << s.vls;
    e << YAML::Key << "vl15_buffer_credits" << YAML::Value << s.vl15;
    if (s.speeds != kAllSpeeds) {
      e << YAML::Key << "speeds" << YAML::Value;
      emit_speeds(e, s.speeds);
    }
    if (s.widths != kAllWidths) {
      e << YAML::Key << "widths" << YAML::Value;
      emit_widths(e, s.widths);
    }
    e << YAML::EndMap;
  };
  emit_defaults("switch", sw, true);
  emit_defaults("hca", hca, false);
  e << YAML::Key << "propagation" << YAML::Value << topology_duration_text(topo.propagation_per_m) + "/m";
  e << YAML::EndMap;

  e << YAML::Key << "nodes" << YAML::Value << YAML::BeginSeq;
  std::size_t hca_extra_ports = 0;
  for (std::size_t i = 0; i < topo.nodes.size(); ++i) {
    const TopoNode& n = topo.nodes[i];
    // A router is read with the switch defaults, but two ports unless it says.
    const bool is_switch = n.type != NodeType::kHca;
    NodeSettings d = is_switch ? sw : hca;
    if (n.type == NodeType::kRouter) d.ports = kDefaultRouterPorts;
    const NodeSettings s = settings_of(n);
    e << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "name" << YAML::Value << n.name;
    e << YAML::Key << "type" << YAML::Value << node_type_name(n.type);
    if (n.kind != SwitchKind::kUnstated) e << YAML::Key << "kind" << YAML::Value << switch_kind_name(n.kind);
    if (n.guid != default_guid(n.type, i, hca_extra_ports))
      e << YAML::Key << "guid" << YAML::Value << fmt::format("0x{:016x}", n.guid);
    if (n.type == NodeType::kHca) hca_extra_ports += n.num_ports - 1;
    if (s.ports != d.ports) e << YAML::Key << "ports" << YAML::Value << s.ports;
    if (is_switch && s.latency != d.latency) e << YAML::Key << "latency" << YAML::Value << topology_duration_text(s.latency);
    if (s.buffer_credits != d.buffer_credits) e << YAML::Key << "buffer_credits" << YAML::Value << s.buffer_credits;
    if (s.vls != d.vls) e << YAML::Key << "vls" << YAML::Value << s.vls;
    if (s.vl15 != d.vl15) e << YAML::Key << "vl15_buffer_credits" << YAML::Value << s.vl15;
    if (s.speeds != d.speeds) {
      e << YAML::Key << "speeds" << YAML::Value;
      emit_speeds(e, s.speeds);
    }
    if (s.widths != d.widths) {
      e << YAML::Key << "widths" << YAML::Value;
      emit_widths(e, s.widths);
    }
    // Ports whose sets differ from the node's, as runs of equal consecutive ports ("5-8").
    bool overrides = false;
    for (unsigned p = 1; p <= n.num_ports;) {
      const SpeedSet ps = n.enabled_speeds(p);
      const WidthSet pw = n.enabled_widths(p);
      unsigned q = p;
      while (q + 1 <= n.num_ports && n.enabled_speeds(q + 1) == ps && n.enabled_widths(q + 1) == pw) ++q;
      if (ps != s.speeds || pw != s.widths) {
        if (!overrides) e << YAML::Key << "port_overrides" << YAML::Value << YAML::BeginMap;
        overrides = true;
        e << YAML::Key << (q == p ? fmt::format("{}", p) : fmt::format("{}-{}", p, q)) << YAML::Value << YAML::BeginMap;
        if (ps != s.speeds) {
          e << YAML::Key << "speeds" << YAML::Value;
          emit_speeds(e, ps);
        }
        if (pw != s.widths) {
          e << YAML::Key << "widths" << YAML::Value;
          emit_widths(e, pw);
        }
        e << YAML::EndMap;
      }
      p = q + 1;
    }
    if (overrides) e << YAML::EndMap;
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;

  e << YAML::Key << "cables" << YAML::Value << YAML::BeginSeq;
  for (const TopoCable& c : topo.cables) {
    e << YAML::Flow << YAML::BeginMap;
    e << YAML::Key << "from" << YAML::Value << fmt::format("{}/{}", topo.nodes[c.node_a].name, c.port_a);
    e << YAML::Key << "to" << YAML::Value << fmt::format("{}/{}", topo.nodes[c.node_b].name, c.port_b);
    if (c.ethernet_speed) {  // an Ethernet cable: its speed and FEC, no lanes
      e << YAML::Key << "speed" << YAML::Value << ethernet_speed_info(*c.ethernet_speed).name;
      if (c.length_mm != length) e << YAML::Key << "length" << YAML::Value << topology_length_text(c.length_mm);
      if (c.fec) e << YAML::Key << "fec" << YAML::Value << (*c.fec ? "on" : "off");
      e << YAML::EndMap;
      continue;
    }
    if (static_cast<int>(c.rate.speed) != rate.first) e << YAML::Key << "speed" << YAML::Value << link_speed_info(c.rate.speed).name;
    if (c.rate.lanes != rate.second) e << YAML::Key << "width" << YAML::Value << fmt::format("{}x", c.rate.lanes);
    if (c.length_mm != length) e << YAML::Key << "length" << YAML::Value << topology_length_text(c.length_mm);
    if (c.failed_lanes) {
      e << YAML::Key << "failed_lanes" << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (unsigned l = 0; l < 16; ++l)
        if (c.failed_lanes & (1u << l)) e << l;
      e << YAML::EndSeq;
    }
    if (c.lanes_reversed) e << YAML::Key << "lanes_reversed" << YAML::Value << true;
    e << YAML::EndMap;
  }
  e << YAML::EndSeq;
  if (!topo.servers.empty()) {
    e << YAML::Key << "servers" << YAML::Value << YAML::BeginMap;
    for (const TopoServer& sv : topo.servers) {
      e << YAML::Key << sv.name << YAML::Value << YAML::Flow << YAML::BeginSeq;
      for (std::size_t h : sv.hosts) e << topo.nodes[h].name;
      e << YAML::EndSeq;
    }
    e << YAML::EndMap;
  }
  e << YAML::EndMap;

  std::string out;
  std::istringstream lines(comment);
  for (std::string line; std::getline(lines, line);) out += "# " + line + "\n";
  return out + e.c_str() + "\n";
}

}  // namespace ibfsim
