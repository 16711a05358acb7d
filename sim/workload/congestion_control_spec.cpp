#include "sim/workload/congestion_control_spec.h"

#include <cstdlib>

namespace ibfsim {

namespace {

// "NODE/PORT" naming a cabled port of a switch.
std::pair<std::size_t, unsigned> switch_port(const YamlValue& v, const Topology& topo) {
  const std::string ref = v.as<std::string>();
  const auto slash = ref.find('/');
  auto node = slash == std::string::npos ? std::nullopt : topo.find_node(ref.substr(0, slash));
  unsigned port = 0;
  if (node) {
    char* end = nullptr;
    const unsigned long p = std::strtoul(ref.c_str() + slash + 1, &end, 10);
    if (*end != '\0' || end == ref.c_str() + slash + 1) node.reset();
    else port = static_cast<unsigned>(p);
  }
  if (!node || topo.nodes[*node].type != NodeType::kSwitch || !topo.cable_at(*node, port))
    v.fail("SWITCH/PORT naming a cabled switch port", "'" + ref + "'");
  return {*node, port};
}

CongestionControlSettings::Ports port_set(const YamlValue& v, const Topology& topo,
                                          std::vector<std::pair<std::size_t, unsigned>>& list) {
  if (v.is_list()) {
    for (const YamlValue& e : v.as_list()) list.push_back(switch_port(e, topo));
    return CongestionControlSettings::Ports::kList;
  }
  const std::string s = v.as<std::string>();
  if (s == "hca_ports") return CongestionControlSettings::Ports::kHcaPorts;
  if (s == "all") return CongestionControlSettings::Ports::kAll;
  if (s == "none") return CongestionControlSettings::Ports::kNone;
  v.fail("hca_ports, all, none or a list of SWITCH/PORT");
}

CctEntry cct_entry(const YamlValue& v) {
  if (v.is_list()) {
    auto pair = v.as_list();
    if (pair.size() != 2) v.fail("[shift, multiplier]");
    return {pair[0].as_in_range<std::uint8_t>(0, 3), pair[1].as_in_range<std::uint16_t>(0, kCctMultiplierMax)};
  }
  const std::string s = v.as<std::string>();
  const auto colon = s.find(':');
  char* e1 = nullptr;
  char* e2 = nullptr;
  const unsigned long shift = colon == std::string::npos ? 99 : std::strtoul(s.c_str(), &e1, 10);
  const unsigned long mult = colon == std::string::npos ? 0 : std::strtoul(s.c_str() + colon + 1, &e2, 10);
  if (colon == std::string::npos || e1 != s.c_str() + colon || *e2 != '\0' || e2 == s.c_str() + colon + 1 || shift > 3 ||
      mult > kCctMultiplierMax)
    v.fail("a CCT entry SHIFT:MULTIPLIER (shift 0..3, multiplier 0..16383) or [shift, multiplier]");
  return {static_cast<std::uint8_t>(shift), static_cast<std::uint16_t>(mult)};
}

}  // namespace

CongestionControlSettings default_congestion_control() {
  CongestionControlSettings s;
  s.threshold = 8;
  s.packet_size = 1;
  s.marking_rate = 0;
  s.ca.ccti_timer = 10;  // 10.24 us
  s.ca.ccti_increase = 1;
  s.ca.ccti_min = 0;
  s.ca.trigger_threshold = 0;
  s.cct = linear_cct(127, 3, 1);
  return s;
}

CongestionControlSettings parse_congestion_control(const YamlMap& m, const Topology& topo) {
  m.check_no_unknown_keys({"enabled", "switch", "ca", "cct"});
  CongestionControlSettings s = default_congestion_control();
  s.enabled = m.optional<bool>("enabled", true);

  YamlMap sw = m.optional_map("switch");
  sw.check_no_unknown_keys({"threshold", "packet_size", "marking_rate", "victim_mask", "credit_mask", "cs_threshold",
                            "cs_return_delay", "ports"});
  s.threshold = sw.optional_in_range<std::uint8_t>("threshold", s.threshold, 0, 15);
  s.packet_size = sw.optional_in_range<std::uint8_t>("packet_size", s.packet_size, 0, 255);
  s.marking_rate = sw.optional_in_range<std::uint16_t>("marking_rate", s.marking_rate, 0, 65535);
  s.cs_threshold = sw.optional_in_range<std::uint8_t>("cs_threshold", s.cs_threshold, 0, 15);
  if (auto v = sw.find("cs_return_delay")) s.cs_return_delay = encode_cct_entry(cct_entry(*v));
  if (auto v = sw.find("victim_mask")) s.victim = port_set(*v, topo, s.victim_ports);
  if (auto v = sw.find("credit_mask")) s.credit = port_set(*v, topo, s.credit_ports);
  for (const YamlValue& pv : sw.optional_list("ports")) {
    YamlMap pm = pv.as_map();
    pm.check_no_unknown_keys({"port", "threshold", "packet_size", "marking_rate", "cs_threshold"});
    CongestionControlSettings::PortOverride o;
    std::tie(o.node, o.port) = switch_port(pm.get("port"), topo);
    if (auto v = pm.find("threshold")) o.threshold = v->as_in_range<std::uint8_t>(0, 15);
    if (auto v = pm.find("packet_size")) o.packet_size = v->as_in_range<std::uint8_t>(0, 255);
    if (auto v = pm.find("marking_rate")) o.marking_rate = v->as_in_range<std::uint16_t>(0, 65535);
    if (auto v = pm.find("cs_threshold")) o.cs_threshold = v->as_in_range<std::uint8_t>(0, 15);
    if (!o.threshold && !o.packet_size && !o.marking_rate && !o.cs_threshold)
      pm.fail("at least one of threshold, packet_size, marking_rate, cs_threshold", "only a port");
    s.port_overrides.push_back(o);
  }

  YamlMap ca = m.optional_map("ca");
  ca.check_no_unknown_keys({"port_control", "ccti_timer", "ccti_increase", "ccti_min", "trigger_threshold"});
  if (auto v = ca.find("port_control")) {
    const std::string pc = v->as<std::string>();
    if (pc == "qp") s.per_sl = false;
    else if (pc == "sl") s.per_sl = true;
    else v->fail("qp (a CCTI per QP) or sl (a CCTI per port and SL)");
  }
  s.ca.ccti_timer = ca.optional_in_range<std::uint16_t>("ccti_timer", s.ca.ccti_timer, 0, 65535);
  s.ca.ccti_increase = ca.optional_in_range<std::uint8_t>("ccti_increase", s.ca.ccti_increase, 0, 255);
  s.ca.ccti_min = ca.optional_in_range<std::uint8_t>("ccti_min", s.ca.ccti_min, 0, 255);
  s.ca.trigger_threshold = ca.optional_in_range<std::uint8_t>("trigger_threshold", s.ca.trigger_threshold, 0, 255);

  YamlMap cct = m.optional_map("cct");
  cct.check_no_unknown_keys({"formula", "limit", "shift", "step", "entries"});
  const std::uint16_t max_limit = 16 * 64 - 1;  // 16 blocks of 64 entries (ControlTableCap)
  if (auto v = cct.find("entries")) {
    if (cct.has("formula") || cct.has("shift") || cct.has("step"))
      v->fail("either entries or formula/shift/step", "both");
    const auto list = v->as_list();
    if (list.empty() || list.size() > std::size_t{max_limit} + 1)
      v->fail("1.." + std::to_string(max_limit + 1) + " entries", std::to_string(list.size()));
    s.cct.entries.clear();
    for (const YamlValue& e : list) s.cct.entries.push_back(cct_entry(e));
    s.cct.ccti_limit = cct.optional_in_range<std::uint16_t>("limit", static_cast<std::uint16_t>(list.size() - 1), 0,
                                                            static_cast<std::uint16_t>(list.size() - 1));
  } else {
    if (auto v = cct.find("formula"); v && v->as<std::string>() != "linear") v->fail("linear");
    const auto limit = cct.optional_in_range<std::uint16_t>("limit", s.cct.ccti_limit, 0, max_limit);
    const auto shift = cct.optional_in_range<std::uint8_t>("shift", 3, 0, 3);
    const auto step = cct.optional_in_range<std::uint16_t>("step", 1, 0, kCctMultiplierMax);
    s.cct = linear_cct(limit, shift, step);
  }
  if (s.ca.ccti_min > s.cct.ccti_limit) ca.get("ccti_min").fail("a CCTI_Min at most the CCT's limit " + std::to_string(s.cct.ccti_limit));
  return s;
}

TimeSeriesSpec parse_time_series(const YamlValue& v, const Topology& topo) {
  TimeSeriesSpec t;
  YamlMap m = v.as_map();
  m.check_no_unknown_keys({"interval", "ports", "plot"});
  t.interval = m.duration("interval");
  if (t.interval == 0) m.get("interval").fail("a sample interval longer than 0");
  for (const YamlValue& p : m.optional_list("ports")) t.ports.push_back(switch_port(p, topo));
  if (auto p = m.find("plot")) {
    const std::string f = p->as<std::string>();
    if (f == "none") t.png = t.svg = false;
    else if (f == "png") t.svg = false;
    else if (f == "svg") t.png = false;
    else if (f != "both") p->fail("png, svg, both or none");
  }
  return t;
}

}  // namespace ibfsim
