#include "sim/workload/roce_spec.h"

#include <fmt/format.h>

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

// What a RoCE run cannot do yet, each refused at its key.
void refuse_unsupported(const YamlMap& root, const Scenario& s) {
  const auto refuse = [&](const char* key, const std::string& what, const std::string& got) {
    root.get(key).fail(fmt::format("no {} with fabric: roce (not supported on RoCE yet)", what), got);
  };
  if (!s.flows.empty()) refuse("workload", "UD generator flows", fmt::format("flow '{}'", s.flows[0].name));
  if (!s.classes.empty()) refuse("workload", "traffic classes", fmt::format("class '{}'", s.classes[0].name));
  for (const VerbsFlowSpec& v : s.verbs_flows)
    if (v.connect == VerbsConnect::kCm)
      refuse("workload", "connect: cm (no subnet manager, no SA: QPs connect statically)",
             fmt::format("verbs flow '{}' with connect: cm", v.name));
  for (const VerbsFlowSpec& v : s.verbs_flows)
    if (v.srq)
      refuse("workload", "srq: true (the server SRQs are not set up on RoCE yet)",
             fmt::format("verbs flow '{}' with srq: true", v.name));
  for (const char* key : {"collectives", "trace", "attacks", "faults", "multicast", "ipoib", "congestion_control",
                          "subnet_manager", "cm", "shared_receive_queue", "link", "phy"})
    if (root.has(key))
      refuse(key, fmt::format("`{}:` section (InfiniBand only, or not on RoCE yet; Ethernet links are set in `roce:`)", key),
             fmt::format("`{}:`", key));
  if (!s.topology.routers().empty())
    root.get("topology").fail("a topology without routers with fabric: roce", fmt::format("{} routers", s.topology.routers().size()));
  if (s.simulation.threads != 1)
    root.optional_map("simulation").get("threads").fail(
        "1 with fabric: roce (the Ethernet modules are not split into partitions yet)",
        s.simulation.threads == 0 ? std::string("auto") : std::to_string(s.simulation.threads));
  if (s.outputs.pcap) refuse("outputs", "capture (outputs.pcap)", "pcap: true");
  if (s.outputs.packet_log) refuse("outputs", "packet log", "packet_log: true");
  if (s.outputs.vcd) refuse("outputs", "waveforms", "vcd: true");
  if (s.outputs.time_series.interval > 0) refuse("outputs", "time series", "time_series");
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
