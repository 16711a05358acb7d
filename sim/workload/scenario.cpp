#include "sim/workload/scenario.h"

#include <filesystem>

#include "sim/core/error.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/yaml_input.h"

namespace ibfsim {

namespace {

WorkloadSpec parse_workload(const YamlMap& m) {
  m.check_no_unknown_keys({"transport", "sources", "destination", "message_size", "mtu", "load", "arrival"});
  WorkloadSpec w;
  if (auto t = m.find("transport")) {
    if (t->as<std::string>() != "ud_send") t->fail("transport ud_send (the only one so far)");
  }
  for (const YamlValue& v : m.optional_list("sources")) w.sources.push_back(v.as<std::string>());
  w.destination = m.optional<std::string>("destination", w.destination);
  if (auto v = m.find("mtu")) {
    w.mtu = v->as<std::uint32_t>();
    if (w.mtu != 256 && w.mtu != 512 && w.mtu != 1024 && w.mtu != 2048 && w.mtu != 4096)
      v->fail("an IB MTU: 256, 512, 1024, 2048 or 4096");
  }
  if (auto v = m.find("message_size")) {
    w.message_size = v->as_in_range<std::uint32_t>(0, w.mtu);
  }
  if (auto v = m.find("load")) {
    w.load = v->as<double>();
    if (!(w.load > 0.0 && w.load <= 1.0)) v->fail("a load in (0, 1]");
  }
  if (auto v = m.find("arrival")) {
    const std::string a = v->as<std::string>();
    if (a == "poisson") w.arrival = Arrival::kPoisson;
    else if (a == "constant") w.arrival = Arrival::kConstant;
    else v->fail("poisson or constant");
  }
  return w;
}

}  // namespace

Scenario load_scenario(const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides) {
  YAML::Node root = load_yaml_file(path);
  for (const auto& [key, value] : overrides) apply_override(root, key, value);
  YamlMap m(root, path);
  m.check_no_unknown_keys({"topology", "seed", "workload", "phases", "outputs"});
  Scenario s;
  s.file = path;
  YamlValue topo = m.get("topology");
  std::filesystem::path tp = topo.as<std::string>();
  if (tp.is_relative()) tp = std::filesystem::path(path).parent_path() / tp;
  s.topology_file = tp.lexically_normal().string();
  if (!std::filesystem::exists(s.topology_file)) topo.fail("the path of a topology file", "'" + s.topology_file + "' (no such file)");
  s.topology = load_topology(s.topology_file);
  s.seed = m.optional<std::uint64_t>("seed", s.seed);
  s.workload = parse_workload(m.optional_map("workload"));

  YamlMap ph = m.optional_map("phases");
  ph.check_no_unknown_keys({"warmup", "measure", "drain"});
  s.phases.warmup = ph.duration("warmup", s.phases.warmup);
  s.phases.measure = ph.duration("measure", s.phases.measure);
  s.phases.drain = ph.duration("drain", s.phases.drain);
  if (s.phases.measure == 0) ph.get("measure").fail("a measurement phase longer than 0");

  YamlMap out = m.optional_map("outputs");
  out.check_no_unknown_keys({"pcap", "pcap_link_packets", "packet_log", "data_check"});
  s.outputs.pcap = out.optional<bool>("pcap", false);
  s.outputs.pcap_link_packets = out.optional<bool>("pcap_link_packets", false);
  s.outputs.packet_log = out.optional<bool>("packet_log", false);
  s.outputs.data_check = out.optional<bool>("data_check", false);

  // Names in the workload must be HCAs of the topology.
  auto check_hca = [&](const std::string& name, const YamlValue& where) {
    auto n = s.topology.find_node(name);
    if (!n || s.topology.nodes[*n].type != NodeType::kHca)
      where.fail("the name of an HCA in " + s.topology_file, "'" + name + "'");
  };
  YamlMap wl = m.optional_map("workload");
  for (const YamlValue& v : wl.optional_list("sources")) check_hca(v.as<std::string>(), v);
  if (s.workload.destination != "random") check_hca(s.workload.destination, wl.get("destination"));
  if (s.topology.hcas().size() < 2) m.fail("a topology with at least two HCAs", "fewer");
  return s;
}

}  // namespace ibfsim
