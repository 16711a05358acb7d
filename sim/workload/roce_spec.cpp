#include "sim/workload/roce_spec.h"

#include <fmt/format.h>

#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "sim/fabric/ethernet_topology.h"
#include "sim/fabric/yaml_input.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

namespace {

// `roce.pfc`: {priorities: [3], xoff, xon, headroom: auto | bytes, pause_quanta, response_time,
// storm_threshold}.
EthernetPfcConfig parse_pfc(const YamlMap& m) {
  m.check_no_unknown_keys({"priorities", "xoff", "xon", "headroom", "pause_quanta", "response_time", "storm_threshold"});
  EthernetPfcConfig c;
  const YamlValue prios = m.get("priorities");
  if (!prios.is_list() || prios.as_list().empty()) prios.fail("a list of lossless priorities 0..7, e.g. [3]");
  for (const YamlValue& v : prios.as_list()) {
    const auto p = v.as_in_range<unsigned>(0, 7);
    if (c.on(p)) v.fail("each priority once", std::to_string(p) + " again");
    c.lossless = static_cast<std::uint8_t>(c.lossless | 1u << p);
  }
  if (auto v = m.find("xoff")) c.xoff_bytes = v->as_in_range<std::uint64_t>(1, std::uint64_t{1} << 32);
  if (auto v = m.find("xon")) c.xon_bytes = v->as_in_range<std::uint64_t>(0, std::uint64_t{1} << 32);
  if (c.xon_bytes > c.xoff_bytes)
    (m.has("xon") ? m.get("xon") : m.get("xoff"))
        .fail(fmt::format("xon at most xoff ({} bytes)", c.xoff_bytes), fmt::format("xon {} bytes", c.xon_bytes));
  if (auto v = m.find("headroom")) {
    const std::string text = v->is_scalar() ? v->as<std::string>() : std::string();
    if (text != "auto") {
      if (text.empty() || text.find_first_not_of("0123456789") != std::string::npos)
        v->fail("auto or a number of bytes (1..4294967296)");
      c.headroom_bytes = v->as_in_range<std::uint64_t>(1, std::uint64_t{1} << 32);
    }
  }
  if (auto v = m.find("pause_quanta")) c.pause_quanta = v->as_in_range<std::uint16_t>(2, 0xFFFF);
  if (auto v = m.find("response_time")) c.response_time = v->as_duration();
  if (auto v = m.find("storm_threshold")) {
    c.storm_threshold = v->as_duration();
    if (c.storm_threshold <= 0) v->fail("a duration above 0");
  }
  return c;
}

// `roce.ecn`: {enabled, kmin, kmax, pmax}; `enabled` read by the caller.
EcnMarkingConfig parse_ecn(const YamlMap& m) {
  m.check_no_unknown_keys({"enabled", "kmin", "kmax", "pmax"});
  EcnMarkingConfig c;
  if (auto v = m.find("kmin")) c.kmin_bytes = v->as_in_range<std::uint64_t>(0, std::uint64_t{1} << 34);
  if (auto v = m.find("kmax")) c.kmax_bytes = v->as_in_range<std::uint64_t>(1, std::uint64_t{1} << 34);
  if (c.kmin_bytes >= c.kmax_bytes)
    (m.has("kmin") ? m.get("kmin") : m.get("kmax"))
        .fail(fmt::format("kmin below kmax ({} bytes)", c.kmax_bytes), fmt::format("kmin {} bytes", c.kmin_bytes));
  if (auto v = m.find("pmax")) c.pmax = v->as_double(0.0, 1.0);
  return c;
}

// Bits per second from a key given in Mb/s (mlx5's unit for these rates).
std::uint64_t mbps(const YamlValue& v, double lo) {
  return static_cast<std::uint64_t>(v.as_double(lo, 1e6) * 1e6 + 0.5);
}

// `roce.dcqcn`: every DcqcnConfig field; `enabled` read by the caller.
DcqcnConfig parse_dcqcn(const YamlMap& m) {
  m.check_no_unknown_keys({"enabled", "g", "initial_alpha", "alpha_period", "increase_period", "increase_bytes",
                           "fast_recovery_steps", "additive_increase_mbps", "hyper_increase_mbps", "min_rate_mbps",
                           "rate_on_first_cnp_mbps", "cnp_interval", "cnp_dscp", "clamp_target_rate"});
  DcqcnConfig c;
  const auto positive = [](const YamlValue& v) {
    const Time t = v.as_duration();
    if (t <= 0) v.fail("a duration above 0");
    return t;
  };
  if (auto v = m.find("g")) c.g = v->as_double(1e-9, 1.0);
  if (auto v = m.find("initial_alpha")) c.initial_alpha = v->as_double(0.0, 1.0);
  if (auto v = m.find("alpha_period")) c.alpha_period = positive(*v);
  if (auto v = m.find("increase_period")) c.increase_period = positive(*v);
  if (auto v = m.find("increase_bytes")) c.increase_bytes = v->as_in_range<std::uint64_t>(0, std::uint64_t{1} << 40);
  if (auto v = m.find("fast_recovery_steps")) c.fast_recovery_steps = v->as_in_range<unsigned>(0, 1000);
  if (auto v = m.find("additive_increase_mbps")) c.additive_increase_bps = mbps(*v, 0.001);
  if (auto v = m.find("hyper_increase_mbps")) c.hyper_increase_bps = mbps(*v, 0.001);
  if (auto v = m.find("min_rate_mbps")) c.min_rate_bps = mbps(*v, 0.001);
  if (auto v = m.find("rate_on_first_cnp_mbps")) c.rate_on_first_cnp_bps = mbps(*v, 0.0);
  if (auto v = m.find("cnp_interval")) c.min_cnp_interval = v->as_duration();
  c.clamp_target_rate = m.optional<bool>("clamp_target_rate", c.clamp_target_rate);
  if (auto v = m.find("cnp_dscp")) c.cnp_dscp = v->as_in_range<std::uint8_t>(0, 63);
  return c;
}

// Whether `roce.<key>` is on: its `enabled`, else `congestion_control.enabled` (RoCE's congestion
// control is ECN marking and DCQCN together).
bool section_enabled(const YamlMap& roce, std::string_view key, bool congestion_control) {
  const YamlMap m = roce.optional_map(key);
  return m.optional<bool>("enabled", congestion_control);
}

RoceSpec parse_roce(const YamlMap& m, bool congestion_control) {
  m.check_no_unknown_keys({"speed", "fec", "cable_delay", "fec_decoder_latency", "cut_through", "switch_latency",
                           "switch_buffer", "dscp", "pcp", "pfc", "ecn", "dcqcn",
                           "deadlock_window"});
  RoceSpec r;
  std::optional<bool> fec;
  if (auto v = m.find("fec")) fec = v->as<bool>();
  EthernetSpeed speed = r.rate.speed;
  if (auto v = m.find("speed")) {
    // YAML reads `100` as a number; the speed's name either way.
    const auto s = parse_ethernet_speed(v->as<std::string>());
    if (!s) v->fail("an Ethernet speed: 25GbE, 50GbE, 100GbE, 200GbE or 400GbE (or 25G .. 400G)");
    speed = *s;
  }
  std::string why;
  const auto rate = ethernet_rate_for(speed, fec, &why);
  if (!rate) m.get("fec").fail("fec: true at this speed", why);
  r.rate = *rate;
  if (auto v = m.find("cable_delay")) r.cable_delay = v->as_duration();
  if (auto v = m.find("fec_decoder_latency")) r.fec_decoder = v->as_duration();
  r.cut_through = m.optional<bool>("cut_through", r.cut_through);
  if (auto v = m.find("switch_latency")) r.switch_latency = v->as_duration();
  if (auto v = m.find("switch_buffer")) r.switch_buffer_bytes = v->as_in_range<std::uint64_t>(9216, std::uint64_t{1} << 34);
  if (auto v = m.find("dscp")) r.dscp = v->as_in_range<std::uint8_t>(0, 63);
  if (auto v = m.find("pcp")) r.pcp = v->as_in_range<std::uint8_t>(0, 7);
  if (m.has("pfc")) r.pfc = parse_pfc(m.map("pfc"));
  r.ecn = parse_ecn(m.optional_map("ecn"));
  r.ecn.enabled = section_enabled(m, "ecn", congestion_control);
  r.dcqcn = parse_dcqcn(m.optional_map("dcqcn"));
  r.dcqcn_enabled = section_enabled(m, "dcqcn", congestion_control);
  if (auto v = m.find("deadlock_window")) {
    r.deadlock_window = v->as_duration();
    if (r.deadlock_window <= 0) v->fail("a duration above 0 (PFC deadlock detection's window)");
  }
  return r;
}

// Warnings of a RoCE run's settings that are legal but likely not meant.
void warn_roce(const YamlMap& root, Scenario& s) {
  const RoceSpec& r = s.roce;
  if (r.pfc.lossless != 0 && !r.pfc.on(roce_data_priority(r)))
    s.warnings.push_back(fmt::format(
        "roce.pfc makes priorities lossless that the HCAs' data frames do not use (they carry priority {}: {}); "
        "the data stays lossy",
        roce_data_priority(r), r.pcp ? "roce.pcp" : "the class selector of roce.dscp"));
  if (r.dcqcn_enabled && !r.ecn.enabled)
    s.warnings.push_back("DCQCN is on but ECN marking is off (roce.ecn.enabled: false): no switch marks, no CNPs");
  if (const auto cc = root.find("congestion_control")) {
    const YamlMap m = cc->as_map();
    for (const char* key : {"switch", "ca", "cct"})
      if (m.has(key))
        s.warnings.push_back(fmt::format("congestion_control.{} is InfiniBand's (Annex A10) and ignored with fabric: roce "
                                         "(RoCE's congestion control is ECN marking and DCQCN: roce.ecn, roce.dcqcn)",
                                         key));
  }
}

// Fails at workload entry `index` (in the file's order): the list's item, the one map, or the
// scenario itself when it has no `workload:` (its one default generator flow).
[[noreturn]] void fail_at_entry(const YamlMap& root, std::size_t index, std::string_view expected, std::string_view got) {
  if (!root.has("workload")) root.fail(expected, got);
  const YamlValue w = root.get("workload");
  (w.is_list() ? w.as_list().at(index) : w).fail(expected, got);
}

// What a RoCE run cannot do yet, each refused at its key (a workload entry at its own map).
void refuse_unsupported(const YamlMap& root, const Scenario& s) {
  constexpr const char* kNotYet = "with fabric: roce (not supported on RoCE yet)";
  for (std::size_t i = 0; i < s.workload_order.size(); ++i) {
    if (s.workload_order[i].first != Scenario::EntryKind::kClass) continue;
    const TrafficClassSpec& c = s.classes[s.workload_order[i].second];
    if (c.transport == ClassTransport::kIpoibUdp || c.transport == ClassTransport::kIpoibTcp)
      fail_at_entry(root, i, "a traffic class over ud_send, ud, uc or rc with fabric: roce (IPoIB is InfiniBand's)",
                    fmt::format("class '{}' with transport: {}", c.name, class_transport_name(c.transport)));
  }
  // SHARP aggregates in InfiniBand switches: refused at the collective's `algorithm`.
  for (std::size_t i = 0; i < s.collectives.size(); ++i)
    if (s.collectives[i].algorithm == NcclAlgorithm::kSharp)
      root.get("collectives").as_list().at(i).as_map().get("algorithm").fail(
          "ring or tree with fabric: roce (SHARP aggregates in InfiniBand switches)",
          fmt::format("collective '{}' with algorithm: sharp", s.collectives[i].name));
  for (std::size_t i = 0; i < s.workload_order.size(); ++i) {
    if (s.workload_order[i].first != Scenario::EntryKind::kVerbs) continue;
    const VerbsFlowSpec& v = s.verbs_flows[s.workload_order[i].second];
    if (v.connect == VerbsConnect::kCm)
      fail_at_entry(root, i, "connect: static with fabric: roce (no subnet manager, no SA, no CM: QPs connect "
                                   "statically)",
                                   fmt::format("verbs flow '{}' with connect: cm", v.name));
    if (v.srq)
      fail_at_entry(root, i, fmt::format("no srq: true {}", kNotYet),
                                   fmt::format("verbs flow '{}' with srq: true", v.name));
  }
  // Sections, each with why.
  const std::pair<const char*, const char*> sections[] = {
      {"attacks", "attacks forge InfiniBand packets"},
      {"faults", "link faults are not on Ethernet links yet"},
      {"multicast", "multicast is not on RoCE yet"},
      {"ipoib", "IPoIB is InfiniBand's"},
      {"subnet_manager", "no subnet manager: addresses and routes are static"},
      {"cm", "no CM: QPs connect statically"},
      {"shared_receive_queue", "srq: true flows are not on RoCE yet"},
      {"link", "InfiniBand links' settings: Ethernet links are set in `roce:`"},
      {"phy", "InfiniBand links' settings: Ethernet links are set in `roce:`"},
  };
  for (const auto& [key, why] : sections)
    if (root.has(key))
      root.get(key).fail(fmt::format("no `{}:` section with fabric: roce ({})", key, why), fmt::format("`{}:`", key));
  if (!s.topology.routers().empty())
    root.get("topology").fail("a topology without routers with fabric: roce (routers join InfiniBand subnets)",
                              fmt::format("router {}", s.topology.nodes[s.topology.routers().front()].name));
  const YamlMap out = root.optional_map("outputs");
  const auto refuse_output = [&out](const char* key, const std::string& what) {
    out.get(key).fail(fmt::format("no {} with fabric: roce", what));
  };
  if (s.outputs.pcap_link_packets)
    refuse_output("pcap_link_packets", "link packets (Ethernet has none: outputs.pcap captures every frame)");
  if (s.outputs.packet_log) refuse_output("packet_log", "packet log (not on RoCE yet)");
  if (s.outputs.vcd) refuse_output("vcd", "waveforms (not on RoCE yet)");
  if (s.outputs.time_series.interval > 0) refuse_output("time_series", "time series (not on RoCE yet)");
}

}  // namespace

void parse_fabric_kind(const YamlMap& root, Scenario& s) {
  if (auto v = root.find("fabric")) {
    const std::string k = v->as<std::string>();
    if (k == "roce") s.fabric = FabricKind::kRoce;
    else if (k != "infiniband") v->fail("infiniband or roce");
  }
  // A topology that says what its switches are must say what the scenario runs.
  const SwitchKind want = s.fabric == FabricKind::kRoce ? SwitchKind::kEthernet : SwitchKind::kInfiniband;
  for (const TopoNode& n : s.topology.nodes)
    if (n.type == NodeType::kSwitch && n.kind != SwitchKind::kUnstated && n.kind != want)
      throw InputError(fmt::format("{}: expected a switch of kind {} (the scenario's fabric is {}), got {} of kind {}",
                                   n.kind_mark.to_string(), switch_kind_name(want),
                                   s.fabric == FabricKind::kRoce ? "roce" : "infiniband", n.name,
                                   switch_kind_name(n.kind)));
  if (s.fabric != FabricKind::kRoce) {
    for (const TopoCable& c : s.topology.cables)
      if (c.ethernet_speed)
        throw InputError(fmt::format("{}: expected a cable of an InfiniBand speed (the scenario's fabric is infiniband), "
                                     "got one of {}",
                                     c.mark.to_string(), ethernet_speed_info(*c.ethernet_speed).name));
    // One file may describe both fabrics (a sweep over `fabric`): the Ethernet settings wait unused.
    if (root.has("roce")) {
      parse_roce(root.get("roce").as_map(), false);  // still checked
      s.warnings.push_back("roce: is ignored with fabric: infiniband");
    }
    return;
  }
  s.roce = parse_roce(root.optional_map("roce"), s.congestion_control.enabled);
  // Ethernet cables with their own speed: FEC where their speed needs it (throws at the cable).
  for (std::size_t k = 0; k < s.topology.cables.size(); ++k) ethernet_cable_own(s.topology, k, s.roce.rate);
  refuse_unsupported(root, s);
  warn_roce(root, s);
}

}  // namespace ibfsim
