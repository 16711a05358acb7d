#include "sim/fabric/topology_yaml.h"

#include <fmt/format.h>

#include <limits>
#include <stdexcept>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/fabric/topology_generators.h"
#include "sim/fabric/yaml_input.h"
#include "sim/phy/fec.h"

namespace ibfsim {

namespace {

constexpr std::uint32_t kMaxBufferCredits = 65535;

LinkSpeed read_speed(const YamlValue& v) {
  if (v.is_scalar()) {
    if (auto s = parse_link_speed(v.node().Scalar())) return *s;
  }
  v.fail("a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR)");
}

// `fec: on` / `off`. Off is refused at a speed that requires FEC (HDR and above).
bool read_fec(const YamlValue& v, LinkSpeed speed) {
  std::optional<bool> on;
  if (v.is_scalar()) on = parse_fec_setting(v.node().Scalar());
  if (!on) v.fail("fec: on or off");
  if (!*on && fec_required(speed))
    v.fail(fmt::format("fec: on at {}, which requires {} FEC", link_speed_info(speed).name,
                       fec_code_name(fec_code_of(speed))),
           "'off'");
  return *on;
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

// `speeds: [EDR, HDR]`: a nonempty list of link speeds.
SpeedSet read_speed_set(const YamlValue& v) {
  if (!v.is_list()) v.fail("a list of link speeds, e.g. [EDR, HDR]");
  SpeedSet set = 0;
  for (const YamlValue& e : v.as_list()) set |= speed_bit(read_speed(e));
  if (set == 0) v.fail("a list of at least one link speed, e.g. [EDR, HDR]", "an empty list");
  return set;
}

// `widths: [4x, 12x]`: a nonempty list of link widths.
WidthSet read_width_set(const YamlValue& v) {
  if (!v.is_list()) v.fail("a list of link widths, e.g. [4x, 12x]");
  WidthSet set = 0;
  for (const YamlValue& e : v.as_list()) set |= width_bit(read_width(e));
  if (set == 0) v.fail("a list of at least one link width, e.g. [4x, 12x]", "an empty list");
  return set;
}

// `vls: 8`: operational data VLs.
unsigned read_vls(const YamlValue& v) {
  if (v.is_scalar() && v.node().Tag() != "!") {
    const std::string& text = v.node().Scalar();
    for (unsigned n : {1u, 2u, 4u, 8u, 15u})
      if (text == std::to_string(n)) return n;
  }
  v.fail("a number of data VLs (1, 2, 4, 8 or 15)");
}

// The settings a switch or an HCA takes from defaults.switch / defaults.hca or its node entry.
struct PortSettings {
  unsigned vls;
  std::uint32_t vl15_buffer_credits;
  SpeedSet speeds;
  WidthSet widths;
};

// Reads vls, vl15_buffer_credits, speeds and widths from m, keeping `base` for absent keys.
PortSettings read_port_settings(const YamlMap& m, PortSettings base) {
  if (auto v = m.find("vls")) base.vls = read_vls(*v);
  base.vl15_buffer_credits =
      m.optional_in_range<std::uint32_t>("vl15_buffer_credits", base.vl15_buffer_credits, kMinVl15Credits, kMaxBufferCredits);
  if (auto v = m.find("speeds")) base.speeds = read_speed_set(*v);
  if (auto v = m.find("widths")) base.widths = read_width_set(*v);
  return base;
}

// "3" or "1-18": the ports a port_overrides key names, checked against 1..num_ports.
std::pair<unsigned, unsigned> read_port_range(const YamlValue& key, const std::string& node_name, unsigned num_ports) {
  const std::string what =
      fmt::format("a port of {} or a range of them in 1..{}, e.g. 3 or 1-18", node_name, num_ports);
  if (!key.is_scalar()) key.fail(what);
  const std::string& text = key.node().Scalar();
  auto number = [&](std::string_view digits) {
    if (digits.empty() || digits.size() > 3) key.fail(what);
    unsigned n = 0;
    for (char c : digits) {
      if (c < '0' || c > '9') key.fail(what);
      n = n * 10 + static_cast<unsigned>(c - '0');
    }
    return n;
  };
  const auto dash = text.find('-');
  const unsigned lo = number(std::string_view(text).substr(0, dash));
  const unsigned hi = dash == std::string::npos ? lo : number(std::string_view(text).substr(dash + 1));
  if (lo < 1 || hi > num_ports || lo > hi) key.fail(what);
  return {lo, hi};
}

// Fills n.port_speeds / n.port_widths: every port gets `base`, then `port_overrides` entries
// replace the speeds and/or widths of the ports they name.
void read_port_sets(const YamlMap& m, TopoNode& n, const PortSettings& base) {
  n.port_speeds.assign(n.num_ports + 1, base.speeds);
  n.port_widths.assign(n.num_ports + 1, base.widths);
  const auto overrides = m.find("port_overrides");
  if (!overrides) return;
  const YamlMap map = overrides->as_map();
  // The line of the entry that named each port: -1 none yet, 0 an entry without a position (--set).
  std::vector<int> given_at(n.num_ports + 1, -1);
  for (const auto& kv : map.node()) {
    const YamlValue key(kv.first, m.file());
    const auto [lo, hi] = read_port_range(key, n.name, n.num_ports);
    for (unsigned p = lo; p <= hi; ++p) {
      if (given_at[p] >= 0) {
        key.fail("each port at most once in port_overrides",
                 given_at[p] > 0 ? fmt::format("port {} again (already at line {})", p, given_at[p])
                                 : fmt::format("port {} again", p));
      }
      given_at[p] = key.line();
    }
    std::optional<YAML::Mark> key_mark;
    if (!kv.first.Mark().is_null()) key_mark = kv.first.Mark();
    const YamlMap entry = YamlValue(kv.second, m.file(), key_mark).as_map();
    entry.check_no_unknown_keys({"speeds", "widths"});
    const auto speeds = entry.find("speeds");
    const auto widths = entry.find("widths");
    if (!speeds && !widths) entry.fail("key 'speeds' or 'widths'", "a map with neither");
    const SpeedSet sp = speeds ? read_speed_set(*speeds) : 0;
    const WidthSet wd = widths ? read_width_set(*widths) : 0;
    for (unsigned p = lo; p <= hi; ++p) {
      if (speeds) n.port_speeds[p] = sp;
      if (widths) n.port_widths[p] = wd;
    }
  }
}

TopologyDefaults read_defaults(const YamlMap& top) {
  TopologyDefaults d;
  const YamlMap defaults = top.optional_map("defaults");
  defaults.check_no_unknown_keys({"link", "switch", "hca", "propagation"});

  const YamlMap link = defaults.optional_map("link");
  link.check_no_unknown_keys({"speed", "width", "length", "fec"});
  if (auto v = link.find("speed")) d.link_rate.speed = read_speed(*v);
  if (auto v = link.find("width")) d.link_rate.lanes = read_width(*v);
  if (auto v = link.find("length")) d.link_length_mm = read_length_mm(*v);
  if (auto v = link.find("fec")) d.link_fec = read_fec(*v, d.link_rate.speed);

  const YamlMap sw = defaults.optional_map("switch");
  sw.check_no_unknown_keys({"ports", "latency", "buffer_credits", "vls", "vl15_buffer_credits", "speeds", "widths"});
  if (auto v = sw.find("ports")) d.switch_ports = v->as_in_range<unsigned>(1, kMaxPorts);
  d.switch_latency = sw.duration("latency", d.switch_latency);
  d.switch_buffer_credits =
      sw.optional_in_range<std::uint32_t>("buffer_credits", d.switch_buffer_credits, 1, kMaxBufferCredits);
  const PortSettings sw_settings = read_port_settings(
      sw, {d.switch_vls, d.switch_vl15_buffer_credits, d.switch_speeds, d.switch_widths});
  d.switch_vls = sw_settings.vls;
  d.switch_vl15_buffer_credits = sw_settings.vl15_buffer_credits;
  d.switch_speeds = sw_settings.speeds;
  d.switch_widths = sw_settings.widths;

  const YamlMap hca = defaults.optional_map("hca");
  hca.check_no_unknown_keys({"ports", "buffer_credits", "vls", "vl15_buffer_credits", "speeds", "widths"});
  d.hca_ports = hca.optional_in_range<unsigned>("ports", d.hca_ports, 1, kMaxPorts);
  d.hca_buffer_credits =
      hca.optional_in_range<std::uint32_t>("buffer_credits", d.hca_buffer_credits, 1, kMaxBufferCredits);
  const PortSettings hca_settings =
      read_port_settings(hca, {d.hca_vls, d.hca_vl15_buffer_credits, d.hca_speeds, d.hca_widths});
  d.hca_vls = hca_settings.vls;
  d.hca_vl15_buffer_credits = hca_settings.vl15_buffer_credits;
  d.hca_speeds = hca_settings.speeds;
  d.hca_widths = hca_settings.widths;

  if (auto v = defaults.find("propagation")) d.propagation_per_m = read_propagation(*v);
  return d;
}

TopoNode read_node(const YamlValue& v, std::size_t index, std::size_t hca_extra_ports, const TopologyDefaults& d) {
  const YamlMap m = v.as_map();
  TopoNode n;
  const YamlValue type = m.get("type");
  const std::string type_name = type.is_scalar() ? type.node().Scalar() : std::string();
  if (type_name == "switch") {
    n.type = NodeType::kSwitch;
    m.check_no_unknown_keys({"name", "type", "guid", "kind", "ports", "latency", "buffer_credits", "vls",
                             "vl15_buffer_credits", "speeds", "widths", "port_overrides"});
    if (auto k = m.find("kind")) {
      const std::string kind = k->is_scalar() ? k->node().Scalar() : std::string();
      if (kind == "infiniband") n.kind = SwitchKind::kInfiniband;
      else if (kind == "ethernet") n.kind = SwitchKind::kEthernet;
      else k->fail("a switch kind (infiniband or ethernet)");
      n.kind_mark = mark_of(*k);
    }
  } else if (type_name == "hca") {
    n.type = NodeType::kHca;
    m.check_no_unknown_keys({"name", "type", "guid", "ports", "buffer_credits", "vls", "vl15_buffer_credits", "speeds",
                             "widths", "port_overrides"});
  } else if (type_name == "router") {
    n.type = NodeType::kRouter;
    m.check_no_unknown_keys({"name", "type", "guid", "ports", "latency", "buffer_credits", "vls", "vl15_buffer_credits",
                             "speeds", "widths", "port_overrides"});
  } else {
    type.fail("a node type (switch, hca or router)");
  }
  n.name = m.require<std::string>("name");
  if (n.type == NodeType::kRouter) {
    // A router takes the switch defaults, but two ports unless it says (one per subnet it joins).
    n.num_ports = m.optional_in_range<unsigned>("ports", kDefaultRouterPorts, 1, kMaxPorts);
    n.switch_latency = m.duration("latency", d.switch_latency);
    n.rx_buffer_credits =
        m.optional_in_range<std::uint32_t>("buffer_credits", d.switch_buffer_credits, 1, kMaxBufferCredits);
  } else if (n.type == NodeType::kSwitch) {
    n.num_ports = m.optional_in_range<unsigned>("ports", d.switch_ports.value_or(kDefaultSwitchPorts), 1, kMaxPorts);
    n.switch_latency = m.duration("latency", d.switch_latency);
    n.rx_buffer_credits =
        m.optional_in_range<std::uint32_t>("buffer_credits", d.switch_buffer_credits, 1, kMaxBufferCredits);
  } else {
    n.num_ports = m.optional_in_range<unsigned>("ports", d.hca_ports, 1, kMaxPorts);
    n.rx_buffer_credits =
        m.optional_in_range<std::uint32_t>("buffer_credits", d.hca_buffer_credits, 1, kMaxBufferCredits);
  }
  n.guid = m.optional_in_range<Guid>("guid", default_guid(n.type, index, hca_extra_ports), 1,
                                     std::numeric_limits<Guid>::max());
  const bool sw = n.type != NodeType::kHca;  // a router's ports take the switch defaults
  const PortSettings settings =
      read_port_settings(m, sw ? PortSettings{d.switch_vls, d.switch_vl15_buffer_credits, d.switch_speeds, d.switch_widths}
                               : PortSettings{d.hca_vls, d.hca_vl15_buffer_credits, d.hca_speeds, d.hca_widths});
  n.op_vls = settings.vls;
  n.vl15_buffer_credits = settings.vl15_buffer_credits;
  read_port_sets(m, n, settings);
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

// An Ethernet cable's keys past `speed`: `fec` (off refused where the speed requires RS-FEC), and
// none of InfiniBand's lane keys (an Ethernet speed fixes its lanes).
void read_ethernet_cable(const YamlMap& m, const TopologyDefaults& d, TopoCable& c) {
  const EthernetSpeedInfo& info = ethernet_speed_info(*c.ethernet_speed);
  for (const char* key : {"width", "failed_lanes", "lanes_reversed"})
    if (auto v = m.find(key))
      v->fail(fmt::format("no {} on a cable of an Ethernet speed (the speed fixes its lanes: {} at {})", key,
                          info.lanes, info.name),
              fmt::format("`{}:`", key));
  c.fec = d.link_fec;
  if (auto f = m.find("fec")) {
    const std::optional<bool> on = f->is_scalar() ? parse_fec_setting(f->node().Scalar()) : std::nullopt;
    if (!on) f->fail("fec: on or off");
    if (!*on && info.fec_required)
      f->fail(fmt::format("fec: on at {}, which always runs {}", info.name, fec_code_name(info.fec)), "'off'");
    c.fec = on;
  } else if (c.fec == false && info.fec_required) {
    m.get("speed").fail("an Ethernet speed where FEC is optional (25GbE, 100GbE), or fec: on on the cable "
                        "(defaults.link.fec is off)",
                        fmt::format("'{}', which always runs {}", info.name, fec_code_name(info.fec)));
  }
}

TopoCable read_cable(const YamlValue& v, const Topology& topo, const TopologyDefaults& d,
                     const std::unordered_map<std::string, std::size_t>& by_name) {
  const YamlMap m = v.as_map();
  m.check_no_unknown_keys({"from", "to", "speed", "width", "length", "failed_lanes", "lanes_reversed", "fec"});
  TopoCable c;
  const PortRef a = read_port_ref(m.get("from"), topo, by_name);
  const PortRef b = read_port_ref(m.get("to"), topo, by_name);
  c.node_a = a.node;
  c.port_a = a.port;
  c.node_b = b.node;
  c.port_b = b.port;
  c.rate = d.link_rate;
  c.length_mm = d.link_length_mm;
  if (auto l = m.find("length")) c.length_mm = read_length_mm(*l);
  if (auto s = m.find("speed")) {
    if (s->is_scalar()) c.ethernet_speed = parse_ethernet_speed(s->node().Scalar());
    if (c.ethernet_speed) {
      read_ethernet_cable(m, d, c);
      c.mark = mark_of(v);
      return c;
    }
    if (!s->is_scalar() || !parse_link_speed(s->node().Scalar()))
      s->fail("a link speed (SDR, DDR, QDR, FDR10, FDR, EDR, HDR, NDR, XDR) or an Ethernet speed (25GbE, 50GbE, "
              "100GbE, 200GbE, 400GbE)");
    c.rate.speed = read_speed(*s);
  }
  if (auto w = m.find("width")) c.rate.lanes = read_width(*w);
  for (const YamlValue& lane : m.optional_list("failed_lanes"))
    c.failed_lanes |= static_cast<std::uint16_t>(1u << lane.as_in_range<unsigned>(0, c.rate.lanes - 1));
  c.lanes_reversed = m.optional<bool>("lanes_reversed", false);
  c.fec = d.link_fec;
  if (auto f = m.find("fec")) {
    c.fec = read_fec(*f, c.rate.speed);
  } else if (c.fec == false && fec_required(c.rate.speed)) {
    // `defaults.link.fec: off` (checked against defaults.link.speed) on a cable of its own speed.
    m.get("speed").fail("a speed where FEC is optional, or fec: on on the cable (defaults.link.fec is off)",
                        fmt::format("'{}', which requires {} FEC", link_speed_info(c.rate.speed).name,
                                    fec_code_name(fec_code_of(c.rate.speed))));
  }
  c.mark = mark_of(v);
  return c;
}

constexpr std::string_view kGeneratorKinds = "fat_tree, leaf_spine, rail_fat_tree, mesh, torus, dragonfly, hypercube";

// A list of integers in lo..hi with at least min_size and at most max_size entries.
std::vector<unsigned> read_uint_list(const YamlValue& v, unsigned lo, unsigned hi, std::size_t min_size,
                                     std::size_t max_size) {
  const std::string what = fmt::format("a list of {}..{} integers in {}..{}", min_size, max_size, lo, hi);
  if (!v.is_list()) v.fail(what);
  const std::vector<YamlValue> items = v.as_list();
  if (items.size() < min_size || items.size() > max_size) {
    v.fail(what, fmt::format("{} entr{}", items.size(), items.size() == 1 ? "y" : "ies"));
  }
  std::vector<unsigned> out;
  for (const YamlValue& e : items) out.push_back(e.as_in_range<unsigned>(lo, hi));
  return out;
}

Topology generate_from(const YamlMap& g, const std::string& kind, const TopologyDefaults& d) {
  if (kind == "leaf_spine") {
    g.check_no_unknown_keys({"kind", "leaves", "spines", "hosts_per_leaf"});
    const unsigned leaves = g.require_in_range<unsigned>("leaves", 1, kMaxPorts);
    const unsigned spines = g.require_in_range<unsigned>("spines", 1, kMaxPorts);
    const unsigned hosts_per_leaf = g.require_in_range<unsigned>("hosts_per_leaf", 1, kMaxPorts);
    return generate_leaf_spine(leaves, spines, hosts_per_leaf, d);
  }
  if (kind == "rail_fat_tree") {
    g.check_no_unknown_keys({"kind", "nodes", "rails", "nodes_per_leaf", "spines"});
    const unsigned nodes = g.require_in_range<unsigned>("nodes", 1, 65535);
    const unsigned rails = g.require_in_range<unsigned>("rails", 1, kMaxPorts);
    const unsigned nodes_per_leaf = g.require_in_range<unsigned>("nodes_per_leaf", 1, kMaxPorts);
    const unsigned spines = g.require_in_range<unsigned>("spines", 1, kMaxPorts);
    return generate_rail_fat_tree(nodes, rails, nodes_per_leaf, spines, d);
  }
  if (kind == "fat_tree") {
    g.check_no_unknown_keys({"kind", "k", "n", "radix", "levels", "m", "w"});
    const bool kn = g.has("k") || g.has("n");
    const bool radix = g.has("radix") || g.has("levels");
    const bool xgft = g.has("m") || g.has("w");
    if (kn + radix + xgft != 1) {
      g.fail("one form of fat_tree: k and n, radix and levels, or m and w",
             kn + radix + xgft == 0 ? "none of these keys" : "keys of two forms");
    }
    if (kn) return generate_kary_ntree(g.require_in_range<unsigned>("k", 1, kMaxPorts / 2),
                                       g.require_in_range<unsigned>("n", 1, 16), d);
    if (radix) {
      const YamlValue r = g.get("radix");
      const unsigned ports = r.as_in_range<unsigned>(2, kMaxPorts);
      if (ports % 2 != 0) r.fail("an even switch radix in 2..254");
      return generate_fat_tree_radix(ports, g.require_in_range<unsigned>("levels", 1, 16), d);
    }
    const YamlValue m = g.get("m");
    const std::vector<unsigned> ms = read_uint_list(m, 1, kMaxPorts, 1, 16);
    const YamlValue w = g.get("w");
    const std::vector<unsigned> ws = read_uint_list(w, 1, kMaxPorts, 1, 16);
    if (ws.size() != ms.size()) w.fail(fmt::format("a list of {} integers like m", ms.size()), fmt::format("{}", ws.size()));
    return generate_xgft(ms, ws, d);
  }
  if (kind == "mesh" || kind == "torus") {
    g.check_no_unknown_keys({"kind", "dims", "hosts_per_switch"});
    const std::vector<unsigned> dims = read_uint_list(g.get("dims"), 2, 4096, 1, 3);
    const unsigned hosts = g.optional_in_range<unsigned>("hosts_per_switch", 1, 1, kMaxPorts);
    return generate_mesh(dims, hosts, kind == "torus", d);
  }
  if (kind == "dragonfly") {
    g.check_no_unknown_keys({"kind", "a", "p", "h", "g"});
    const unsigned a = g.require_in_range<unsigned>("a", 1, kMaxPorts);
    const unsigned p = g.require_in_range<unsigned>("p", 1, kMaxPorts);
    const unsigned h = g.require_in_range<unsigned>("h", 1, kMaxPorts);
    const unsigned groups = g.optional_in_range<unsigned>("g", 0, 2, a * h + 1);
    return generate_dragonfly(a, p, h, groups, d);
  }
  if (kind == "hypercube") {
    g.check_no_unknown_keys({"kind", "dim", "hosts_per_switch"});
    const unsigned dim = g.require_in_range<unsigned>("dim", 1, 16);
    const unsigned hosts = g.optional_in_range<unsigned>("hosts_per_switch", 1, 1, kMaxPorts);
    return generate_hypercube(dim, hosts, d);
  }
  g.get("kind").fail(fmt::format("a generator kind ({})", kGeneratorKinds));
}

Topology read_generated(const YamlValue& v, const TopologyDefaults& d) {
  const YamlMap g = v.as_map();
  const YamlValue kind = g.get("kind");
  if (!kind.is_scalar()) kind.fail(fmt::format("a generator kind ({})", kGeneratorKinds));
  Topology topo;
  try {
    topo = generate_from(g, kind.node().Scalar(), d);
  } catch (const std::invalid_argument& e) {
    throw InputError(fmt::format("{}: expected {}", v.location(), e.what()));
  }
  const SourceMark mark = mark_of(v);
  for (TopoNode& n : topo.nodes) n.mark = mark;
  for (TopoCable& c : topo.cables) c.mark = mark;
  for (TopoServer& sv : topo.servers) sv.mark = mark;
  return topo;
}

// `servers: {n1: [h1, h2], n2: [h3, h4]}`: each server's HCAs in rail order, each HCA in at most one.
std::vector<TopoServer> read_servers(const YamlValue& v, const Topology& topo) {
  std::unordered_map<std::string, std::size_t> by_name;
  for (std::size_t i = 0; i < topo.nodes.size(); ++i) by_name.emplace(topo.nodes[i].name, i);
  std::unordered_map<std::size_t, std::string> owner;  // host -> its server
  std::vector<TopoServer> out;
  const YamlMap map = v.as_map();
  for (const auto& kv : map.node()) {
    const YamlValue key(kv.first, v.file());
    if (!key.is_scalar() || key.node().Scalar().empty()) key.fail("a server name");
    TopoServer sv;
    sv.name = key.node().Scalar();
    sv.mark = mark_of(key);
    for (const TopoServer& other : out)
      if (other.name == sv.name) key.fail("a unique server name", fmt::format("'{}' again", sv.name));
    std::optional<YAML::Mark> key_mark;
    if (!kv.first.Mark().is_null()) key_mark = kv.first.Mark();
    const YamlValue list(kv.second, v.file(), key_mark);
    if (!list.is_list()) list.fail(fmt::format("a list of the HCAs of server {}, e.g. [h1, h2]", sv.name));
    const std::vector<YamlValue> hosts = list.as_list();
    if (hosts.empty()) list.fail(fmt::format("at least one HCA in server {}", sv.name), "an empty list");
    for (const YamlValue& h : hosts) {
      if (!h.is_scalar()) h.fail("an HCA name");
      const std::string& name = h.node().Scalar();
      const auto it = by_name.find(name);
      if (it == by_name.end()) h.fail("an HCA of the topology", fmt::format("'{}' (no node {})", name, name));
      if (topo.nodes[it->second].type != NodeType::kHca)
        h.fail("an HCA of the topology", fmt::format("'{}', a {}", name, node_type_name(topo.nodes[it->second].type)));
      const auto [o, fresh] = owner.emplace(it->second, sv.name);
      if (!fresh) h.fail("each HCA in at most one server", fmt::format("'{}' again (already in {})", name, o->second));
      sv.hosts.push_back(it->second);
    }
    out.push_back(std::move(sv));
  }
  return out;
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
  top.check_no_unknown_keys({"defaults", "nodes", "cables", "generate", "servers"});
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
    if (nodes.empty()) top.get("nodes").fail("at least one node");
    std::unordered_map<std::string, std::size_t> by_name;
    topo.nodes.reserve(nodes.size());
    std::size_t hca_extra_ports = 0;  // ports beyond the first of the HCAs so far (default_guid)
    for (const YamlValue& v : nodes) {
      topo.nodes.push_back(read_node(v, topo.nodes.size(), hca_extra_ports, d));
      if (topo.nodes.back().type == NodeType::kHca) hca_extra_ports += topo.nodes.back().num_ports - 1;
      by_name.emplace(topo.nodes.back().name, topo.nodes.size() - 1);  // duplicates: validate_topology
    }
    const std::vector<YamlValue> cables = top.optional_list("cables");
    topo.cables.reserve(cables.size());
    for (const YamlValue& v : cables) topo.cables.push_back(read_cable(v, topo, d, by_name));
  }
  if (auto servers = top.find("servers")) {
    if (!topo.servers.empty())
      servers->fail("no servers next to a generator that groups its hosts itself",
                    fmt::format("servers next to {}", top.get("generate").as_map().get("kind").node().Scalar()));
    topo.servers = read_servers(*servers, topo);
  }
  topo.source_file = file_name;
  topo.propagation_per_m = d.propagation_per_m;
  validate_topology(topo);
  return topo;
}

Topology load_topology(const std::string& path) {
  return parse_topology(load_yaml_file(path, "a topology file"), path);
}

}  // namespace ibfsim
