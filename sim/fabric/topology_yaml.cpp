#include "sim/fabric/topology_yaml.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/fabric/topology_generators.h"
#include "sim/fabric/yaml_input.h"

namespace ibfsim {

namespace {

constexpr std::uint32_t kMaxBufferCredits = 65535;

LinkSpeed read_speed(const YamlValue& v) {
  if (v.is_scalar()) {
    if (auto s = parse_link_speed(v.node().Scalar())) return *s;
  }
  v.fail("a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR)");
}

unsigned read_width(const YamlValue& v) {
  if (v.is_scalar()) {
    if (auto w = parse_link_width(v.node().Scalar())) return *w;
  }
  v.fail("a link width (1x, 2x, 4x, 8x, 12x)");
}

// "2m", "0.5 m", "30cm", "750mm", exact to the millimetre without floating point.
std::uint32_t read_length_mm(const YamlValue& v) {
  static constexpr std::string_view kWhat = "a cable length with a unit (m, cm, mm), e.g. 2m or 30cm";
  if (!v.is_scalar()) v.fail(kWhat);
  std::string_view s = v.node().Scalar();
  std::size_t i = 0;
  std::uint64_t whole = 0;
  std::size_t digits = 0;
  for (; i < s.size() && s[i] >= '0' && s[i] <= '9'; ++i, ++digits) {
    whole = whole * 10 + static_cast<unsigned>(s[i] - '0');
    if (whole > std::numeric_limits<std::uint32_t>::max()) v.fail(kWhat);
  }
  std::string_view frac;
  if (i < s.size() && s[i] == '.') {
    const std::size_t start = ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i;
    frac = s.substr(start, i - start);
  }
  if (digits == 0 && frac.empty()) v.fail(kWhat);
  while (i < s.size() && s[i] == ' ') ++i;
  const std::string_view unit = s.substr(i);
  std::uint64_t scale;
  if (unit == "m") scale = 1000;
  else if (unit == "cm") scale = 10;
  else if (unit == "mm") scale = 1;
  else v.fail(kWhat);
  std::uint64_t mm = whole * scale;
  for (char c : frac) {
    scale /= 10;
    if (scale == 0) {
      if (c != '0') v.fail("a cable length in whole millimetres");
      continue;
    }
    mm += static_cast<unsigned>(c - '0') * scale;
  }
  if (mm > std::numeric_limits<std::uint32_t>::max()) v.fail(kWhat);
  return static_cast<std::uint32_t>(mm);
}

// "5ns/m": signal delay per metre of cable.
Time read_propagation(const YamlValue& v) {
  static constexpr std::string_view kWhat = "a delay per metre, e.g. 5ns/m";
  if (!v.is_scalar()) v.fail(kWhat);
  std::string_view s = v.node().Scalar();
  while (!s.empty() && s.back() == ' ') s.remove_suffix(1);
  if (s.size() < 2 || s.substr(s.size() - 2) != "/m") v.fail(kWhat);
  try {
    return parse_duration(s.substr(0, s.size() - 2));
  } catch (const std::invalid_argument&) {
    v.fail(kWhat);
  }
}

SourceMark mark_of(const YamlValue& v) { return SourceMark{v.file(), v.line(), v.column()}; }

TopologyDefaults read_defaults(const YamlMap& top) {
  TopologyDefaults d;
  const YamlMap defaults = top.optional_map("defaults");
  defaults.check_no_unknown_keys({"link", "switch", "hca", "propagation"});

  const YamlMap link = defaults.optional_map("link");
  link.check_no_unknown_keys({"speed", "width", "length"});
  if (auto v = link.find("speed")) d.link_rate.speed = read_speed(*v);
  if (auto v = link.find("width")) d.link_rate.lanes = read_width(*v);
  if (auto v = link.find("length")) d.link_length_mm = read_length_mm(*v);

  const YamlMap sw = defaults.optional_map("switch");
  sw.check_no_unknown_keys({"ports", "latency", "buffer_credits"});
  if (auto v = sw.find("ports")) d.switch_ports = v->as_in_range<unsigned>(1, kMaxPorts);
  d.switch_latency = sw.duration("latency", d.switch_latency);
  d.switch_buffer_credits =
      sw.optional_in_range<std::uint32_t>("buffer_credits", d.switch_buffer_credits, 1, kMaxBufferCredits);

  const YamlMap hca = defaults.optional_map("hca");
  hca.check_no_unknown_keys({"ports", "buffer_credits"});
  d.hca_ports = hca.optional_in_range<unsigned>("ports", d.hca_ports, 1, kMaxPorts);
  d.hca_buffer_credits =
      hca.optional_in_range<std::uint32_t>("buffer_credits", d.hca_buffer_credits, 1, kMaxBufferCredits);

  if (auto v = defaults.find("propagation")) d.propagation_per_m = read_propagation(*v);
  return d;
}

TopoNode read_node(const YamlValue& v, std::size_t index, const TopologyDefaults& d) {
  const YamlMap m = v.as_map();
  TopoNode n;
  const YamlValue type = m.get("type");
  const std::string type_name = type.is_scalar() ? type.node().Scalar() : std::string();
  if (type_name == "switch") {
    n.type = NodeType::kSwitch;
    m.check_no_unknown_keys({"name", "type", "guid", "ports", "latency", "buffer_credits"});
  } else if (type_name == "hca") {
    n.type = NodeType::kHca;
    m.check_no_unknown_keys({"name", "type", "guid", "ports", "buffer_credits"});
  } else {
    type.fail("a node type (switch or hca)");
  }
  n.name = m.require<std::string>("name");
  n.guid = m.optional_in_range<Guid>("guid", default_guid(index), 1, std::numeric_limits<Guid>::max());
  if (n.type == NodeType::kSwitch) {
    n.num_ports = m.optional_in_range<unsigned>("ports", d.switch_ports.value_or(kDefaultSwitchPorts), 1, kMaxPorts);
    n.switch_latency = m.duration("latency", d.switch_latency);
    n.rx_buffer_credits =
        m.optional_in_range<std::uint32_t>("buffer_credits", d.switch_buffer_credits, 1, kMaxBufferCredits);
  } else {
    n.num_ports = m.optional_in_range<unsigned>("ports", d.hca_ports, 1, kMaxPorts);
    n.rx_buffer_credits =
        m.optional_in_range<std::uint32_t>("buffer_credits", d.hca_buffer_credits, 1, kMaxBufferCredits);
  }
  n.mark = mark_of(v);
  return n;
}

// "h1/1" -> node index and port, checked against the declared nodes.
PortRef read_port_ref(const YamlValue& v, const Topology& topo,
                      const std::unordered_map<std::string, std::size_t>& by_name) {
  static constexpr std::string_view kWhat = "NODE/PORT, e.g. h1/1";
  if (!v.is_scalar()) v.fail(kWhat);
  const std::string& text = v.node().Scalar();
  const auto slash = text.rfind('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == text.size() || text.size() - slash > 4) v.fail(kWhat);
  unsigned port = 0;
  for (std::size_t i = slash + 1; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') v.fail(kWhat);
    port = port * 10 + static_cast<unsigned>(text[i] - '0');
  }
  const std::string name = text.substr(0, slash);
  const auto it = by_name.find(name);
  if (it == by_name.end()) {
    v.fail("NODE/PORT naming a declared node", fmt::format("'{}' (no node {})", text, name));
  }
  const TopoNode& n = topo.nodes[it->second];
  if (port < 1 || port > n.num_ports) {
    v.fail(fmt::format("a port of {} in 1..{}", name, n.num_ports), fmt::format("'{}'", text));
  }
  return PortRef{it->second, port};
}

TopoCable read_cable(const YamlValue& v, const Topology& topo, const TopologyDefaults& d,
                     const std::unordered_map<std::string, std::size_t>& by_name) {
  const YamlMap m = v.as_map();
  m.check_no_unknown_keys({"from", "to", "speed", "width", "length"});
  TopoCable c;
  const PortRef a = read_port_ref(m.get("from"), topo, by_name);
  const PortRef b = read_port_ref(m.get("to"), topo, by_name);
  c.node_a = a.node;
  c.port_a = a.port;
  c.node_b = b.node;
  c.port_b = b.port;
  c.rate = d.link_rate;
  if (auto s = m.find("speed")) c.rate.speed = read_speed(*s);
  if (auto w = m.find("width")) c.rate.lanes = read_width(*w);
  c.length_mm = d.link_length_mm;
  if (auto l = m.find("length")) c.length_mm = read_length_mm(*l);
  c.mark = mark_of(v);
  return c;
}

Topology read_generated(const YamlValue& v, const TopologyDefaults& d) {
  const YamlMap g = v.as_map();
  const YamlValue kind = g.get("kind");
  if (!kind.is_scalar() || kind.node().Scalar() != "leaf_spine") kind.fail("a generator kind (leaf_spine)");
  g.check_no_unknown_keys({"kind", "leaves", "spines", "hosts_per_leaf"});
  const unsigned leaves = g.require_in_range<unsigned>("leaves", 1, kMaxPorts);
  const unsigned spines = g.require_in_range<unsigned>("spines", 1, kMaxPorts);
  const unsigned hosts_per_leaf = g.require_in_range<unsigned>("hosts_per_leaf", 1, kMaxPorts);
  Topology topo;
  try {
    topo = generate_leaf_spine(leaves, spines, hosts_per_leaf, d);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: expected {}", v.location(), e.what()));
  }
  const SourceMark mark = mark_of(v);
  for (TopoNode& n : topo.nodes) n.mark = mark;
  for (TopoCable& c : topo.cables) c.mark = mark;
  return topo;
}

}  // namespace

Topology parse_topology(const YAML::Node& root, const std::string& file_name) {
  if (!root.IsDefined() || root.IsNull()) {
    throw InputError(fmt::format("{}: expected a topology (a map with nodes and cables, or generate), got an empty file",
                                 file_name));
  }
  const YamlValue root_value(root, file_name);
  if (!root.IsMap()) root_value.fail("a topology (a map with nodes and cables, or generate)");
  const YamlMap top(root, file_name);
  top.check_no_unknown_keys({"defaults", "nodes", "cables", "generate"});
  const TopologyDefaults d = read_defaults(top);

  Topology topo;
  if (auto gen = top.find("generate")) {
    for (const char* key : {"nodes", "cables"}) {
      if (auto other = top.find(key)) {
        other->fail("either generate or nodes and cables", fmt::format("{} next to generate", key));
      }
    }
    topo = read_generated(*gen, d);
  } else {
    if (!top.has("nodes")) top.fail("key 'nodes' (or 'generate')", "a map with neither");
    const std::vector<YamlValue> nodes = top.list("nodes");
    std::unordered_map<std::string, std::size_t> by_name;
    topo.nodes.reserve(nodes.size());
    for (const YamlValue& v : nodes) {
      topo.nodes.push_back(read_node(v, topo.nodes.size(), d));
      by_name.emplace(topo.nodes.back().name, topo.nodes.size() - 1);  // duplicates: validate_topology
    }
    const std::vector<YamlValue> cables = top.optional_list("cables");
    topo.cables.reserve(cables.size());
    for (const YamlValue& v : cables) topo.cables.push_back(read_cable(v, topo, d, by_name));
  }
  topo.source_file = file_name;
  topo.propagation_per_m = d.propagation_per_m;
  validate_topology(topo);
  return topo;
}

Topology load_topology(const std::string& path) { return parse_topology(load_yaml_file(path), path); }

}  // namespace ibfsim
