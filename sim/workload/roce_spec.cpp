#include "sim/workload/roce_spec.h"

#include <fmt/format.h>

#include <optional>
#include <string_view>
#include <utility>

#include "sim/fabric/yaml_input.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

namespace {

RoceSpec parse_roce(const YamlMap& m) {
  m.check_no_unknown_keys({"speed", "fec", "cable_delay", "fec_decoder_latency", "cut_through", "switch_latency",
                           "switch_buffer", "dscp", "pcp"});
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
  return r;
}

// Fails at workload entry `index` (in the file's order): the list's item, the one map, or the
// scenario itself when it has no `workload:` (its one default generator flow).
[[noreturn]] void fail_at_entry(const YamlMap& root, std::size_t index, std::string_view expected, std::string_view got) {
  if (!root.has("workload")) root.fail(expected, got);
  const YamlValue w = root.get("workload");
  (w.is_list() ? w.as_list().at(index) : w).fail(expected, got);
}

// The first workload entry of `kind`, if any: its index in the file's order.
std::optional<std::size_t> first_entry(const Scenario& s, Scenario::EntryKind kind) {
  for (std::size_t i = 0; i < s.workload_order.size(); ++i)
    if (s.workload_order[i].first == kind) return i;
  return std::nullopt;
}

// What a RoCE run cannot do yet, each refused at its key (a workload entry at its own map).
void refuse_unsupported(const YamlMap& root, const Scenario& s) {
  constexpr const char* kNotYet = "with fabric: roce (not supported on RoCE yet)";
  if (auto i = first_entry(s, Scenario::EntryKind::kGenerator))
    fail_at_entry(root, *i, fmt::format("no UD generator flows {}", kNotYet),
                                  fmt::format("flow '{}'", s.flows[s.workload_order[*i].second].name));
  if (auto i = first_entry(s, Scenario::EntryKind::kClass))
    fail_at_entry(root, *i, fmt::format("no traffic classes {}", kNotYet),
                                  fmt::format("class '{}'", s.classes[s.workload_order[*i].second].name));
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
      {"collectives", "collectives, NCCL-style or SHARP, are not on RoCE yet"},
      {"trace", "the trace replay is not on RoCE yet"},
      {"attacks", "attacks forge InfiniBand packets"},
      {"faults", "link faults are not on Ethernet links yet"},
      {"multicast", "multicast is not on RoCE yet"},
      {"ipoib", "IPoIB is InfiniBand's"},
      {"congestion_control", "InfiniBand's congestion control; ECN marking and DCQCN are not on RoCE yet"},
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
  if (s.simulation.threads != 1)
    root.optional_map("simulation").get("threads").fail(
        "1 with fabric: roce (the Ethernet modules are not split into partitions yet)",
        s.simulation.threads == 0 ? std::string("auto") : std::to_string(s.simulation.threads));
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
  if (s.fabric != FabricKind::kRoce) {
    if (root.has("roce")) root.get("roce").fail("no `roce:` section without fabric: roce", "one");
    return;
  }
  s.roce = parse_roce(root.optional_map("roce"));
  refuse_unsupported(root, s);
}

}  // namespace ibfsim
