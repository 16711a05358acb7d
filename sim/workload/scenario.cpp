#include "sim/workload/scenario.h"
#include "sim/workload/subnet_manager_spec.h"

#include "sim/fabric/static_routing.h"
#include "sim/fabric/topology_subnets.h"

#include <fmt/format.h>

#include <algorithm>
#include <array>
#include <filesystem>
#include <optional>

#include "sim/core/error.h"
#include "sim/fabric/topology_loader.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/yaml_input.h"
#include "sim/subnet_manager/routing/routing_engine.h"

namespace ibfsim {

namespace {

WorkloadSpec parse_workload(const YamlMap& m, std::size_t index) {
  // The transport first: a misspelt verbs transport should be reported as that, not as the keys
  // the UD generator does not know.
  if (auto t = m.find("transport")) {
    if (t->as<std::string>() != "ud_send") t->fail("a transport: ud_send (the UD traffic generator), rc, uc or ud");
  }
  m.check_no_unknown_keys({"name", "transport", "sources", "destination", "message_size", "mtu", "load", "arrival", "sl"});
  WorkloadSpec w;
  w.name = m.optional<std::string>("name", "flow" + std::to_string(index));
  w.sl = m.optional_in_range<std::uint8_t>("sl", 0, 0, 15);
  if (auto sv = m.find("sources")) {
    for (const YamlValue& v : sv->as_list()) {
      const std::string name = v.as<std::string>();
      if (std::find(w.sources.begin(), w.sources.end(), name) != w.sources.end()) v.fail("each source once", "'" + name + "' again");
      w.sources.push_back(name);
    }
    // An empty list would otherwise mean "every HCA", the opposite of what it says.
    if (w.sources.empty()) sv->fail("at least one source (leave sources out for every HCA)", "an empty list");
  }
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

LinkSettings parse_link(const YamlMap& m) {
  m.check_no_unknown_keys(
      {"mtu", "hoq_life", "switch_lifetime", "sl_to_vl", "switch_sl_to_vl", "vl_arbitration", "training_delay"});
  LinkSettings l;
  l.training_delay = m.optional<bool>("training_delay", l.training_delay);
  if (auto v = m.find("mtu")) {
    l.mtu = v->as<std::uint32_t>();
    if (l.mtu != 256 && l.mtu != 512 && l.mtu != 1024 && l.mtu != 2048 && l.mtu != 4096)
      v->fail("an IB MTU: 256, 512, 1024, 2048 or 4096");
  }
  l.hoq_life_code = m.optional_in_range<unsigned>("hoq_life", l.hoq_life_code, 0, 31);
  l.switch_lifetime_code = m.optional_in_range<unsigned>("switch_lifetime", l.switch_lifetime_code, 0, 31);
  auto table16 = [](const YamlValue& v) {
    auto list = v.as_list();
    if (list.size() != 16) v.fail("a list of 16 VLs, one per SL", std::to_string(list.size()) + " entries");
    std::array<std::uint8_t, 16> vls{};
    for (std::size_t i = 0; i < 16; ++i) vls[i] = list[i].as_in_range<std::uint8_t>(0, 15);
    return SlToVlTable::from(vls);
  };
  if (auto v = m.find("sl_to_vl")) l.sl_to_vl = table16(*v);
  if (auto v = m.find("switch_sl_to_vl")) l.switch_sl_to_vl = table16(*v);
  if (auto v = m.find("vl_arbitration")) {
    YamlMap a = v->as_map();
    a.check_no_unknown_keys({"high", "low", "high_limit"});
    auto table = [&](const char* key) {
      std::vector<VlArbEntry> t;
      const auto entries = a.optional_list(key);
      if (entries.size() > 64) a.get(key).fail("at most 64 entries", std::to_string(entries.size()));
      for (const YamlValue& e : entries) {
        auto pair = e.as_list();
        if (pair.size() != 2) e.fail("[VL, weight]");
        t.push_back({pair[0].as_in_range<std::uint8_t>(0, 14), pair[1].as_in_range<std::uint8_t>(0, 255)});
      }
      return t;
    };
    l.vl_arbitration.high = table("high");
    l.vl_arbitration.low = table("low");
    l.vl_arbitration.high_limit = a.optional_in_range<std::uint8_t>("high_limit", 0, 0, 255);
    if (l.vl_arbitration.high.empty() && l.vl_arbitration.low.empty())
      v->fail("at least one entry in high or low");
  }
  return l;
}

std::vector<LinkFault> parse_faults(const std::vector<YamlValue>& list, const Topology& topo) {
  std::vector<LinkFault> faults;
  for (const YamlValue& v : list) {
    YamlMap f = v.as_map();
    f.check_no_unknown_keys({"at", "link", "state"});
    LinkFault lf;
    lf.at = f.duration("at");
    YamlValue where = f.get("link");
    const std::string ref = where.as<std::string>();
    const auto slash = ref.find('/');
    auto node = slash == std::string::npos ? std::nullopt : topo.find_node(ref.substr(0, slash));
    unsigned port = 0;
    if (node) {
      try {
        port = static_cast<unsigned>(std::stoul(ref.substr(slash + 1)));
      } catch (const std::exception&) {
        node.reset();
      }
    }
    if (!node || !topo.cable_at(*node, port)) where.fail("NODE/PORT naming a cabled port", "'" + ref + "'");
    lf.node = *node;
    lf.port = port;
    YamlValue st = f.get("state");
    const std::string state = st.as<std::string>();
    if (state == "down") lf.up = false;
    else if (state == "up") lf.up = true;
    else st.fail("down or up");
    faults.push_back(lf);
  }
  return faults;
}

// The `workload:` entries: a list of flows, or one flow as a map.
std::vector<YamlMap> workload_maps(const YamlMap& m) {
  std::vector<YamlMap> all_flow_maps;
  // A scenario of collectives or a trace replay alone has no generator flow.
  if (!m.has("workload") && (m.has("collectives") || m.has("trace"))) return all_flow_maps;
  if (auto w = m.find("workload"); w && w->is_list()) {
    for (const YamlValue& v : w->as_list()) all_flow_maps.push_back(v.as_map());
    if (all_flow_maps.empty()) w->fail("at least one flow");
  } else {
    all_flow_maps.push_back(m.optional_map("workload"));
  }
  return all_flow_maps;
}

// The maps of the generator flows and of the verbs flows, in the order of s.flows and
// s.verbs_flows: their names are checked once the topology's multicast groups are known.
struct WorkloadMaps {
  std::vector<YamlMap> flows, verbs;
};

// Each workload entry into s as a traffic class, a verbs flow or a generator flow.
WorkloadMaps parse_workload_entries(const std::vector<YamlMap>& all_flow_maps, bool data_check, Scenario& s) {
  WorkloadMaps maps;
  for (std::size_t i = 0; i < all_flow_maps.size(); ++i) {
    const YamlMap& fm = all_flow_maps[i];
    const auto t = fm.find("transport");
    if (is_traffic_class(fm)) {
      s.workload_order.emplace_back(Scenario::EntryKind::kClass, s.classes.size());
      s.classes.push_back(parse_traffic_class(fm, i, s.topology));
    } else if (t && is_verbs_transport(t->as<std::string>())) {
      s.workload_order.emplace_back(Scenario::EntryKind::kVerbs, s.verbs_flows.size());
      s.verbs_flows.push_back(parse_verbs_flow(fm, i, data_check));
      maps.verbs.push_back(fm);
    } else {
      s.workload_order.emplace_back(Scenario::EntryKind::kGenerator, s.flows.size());
      s.flows.push_back(parse_workload(fm, i));
      maps.flows.push_back(fm);
    }
  }
  return maps;
}

void parse_phy(const YamlMap& phy, const Topology& topo, PhySettings& p) {
  phy.check_no_unknown_keys({"mode", "bit_error_rate", "links", "skip_interval_edges", "fec_decoder_latency"});
  p.fec_decoder_latency = phy.duration("fec_decoder_latency", p.fec_decoder_latency);
  if (auto v = phy.find("skip_interval_edges")) {
    p.skip_interval_edges = v->as<std::uint64_t>();
    // Longer than a SKIP (4 edges on 8b/10b), and not so long that it never matters.
    if (p.skip_interval_edges != 0 && (p.skip_interval_edges <= kSkipEdges8b10b ||
                                       p.skip_interval_edges > (std::uint64_t{1} << 32)))
      v->fail("0 (no SKIPs) or a number of edges in 5..4294967296");
  }
  if (auto v = phy.find("mode")) {
    const std::string mode = v->as<std::string>();
    if (mode == "bit_exact") p.bit_exact = true;
    else if (mode != "timing") v->fail("timing or bit_exact");
  }
  if (auto v = phy.find("bit_error_rate")) {
    p.bit_error_rate = v->as<double>();
    if (!(p.bit_error_rate >= 0.0 && p.bit_error_rate < 0.5)) v->fail("a bit error rate in [0, 0.5)");
    if (p.bit_error_rate > 0 && !p.bit_exact) v->fail("phy.mode: bit_exact for bit errors", "timing mode");
  }
  for (const YamlValue& v : phy.optional_list("links")) {
    const std::string ref = v.as<std::string>();
    const auto slash = ref.find('/');
    auto node = slash == std::string::npos ? std::nullopt : topo.find_node(ref.substr(0, slash));
    unsigned port = 0;
    if (node) port = static_cast<unsigned>(std::strtoul(ref.c_str() + slash + 1, nullptr, 10));
    if (!node || !topo.cable_at(*node, port)) v.fail("NODE/PORT naming a cabled port", "'" + ref + "'");
    p.links.emplace_back(*node, port);
  }
}

void parse_phases(const YamlMap& ph, Phases& phases) {
  ph.check_no_unknown_keys({"start", "warmup", "measure", "drain", "limit"});
  if (auto v = ph.find("start")) {
    if (!(v->is_scalar() && v->node().Scalar() == "links_up")) {
      try {
        phases.start = v->as_duration();
      } catch (const InputError&) {
        v->fail("links_up or a duration with a unit (fs, ps, ns, us, ms, s), e.g. 0us");
      }
    }
  }
  phases.warmup = ph.duration("warmup", phases.warmup);
  phases.measure = ph.duration("measure", phases.measure);
  phases.drain = ph.duration("drain", phases.drain);
  if (phases.measure == 0) ph.get("measure").fail("a measurement phase longer than 0");
  phases.limit = ph.duration("limit", phases.limit);
  if (phases.limit == 0) ph.get("limit").fail("a time limit longer than 0");
}

void parse_outputs(const YamlMap& out, const Topology& topo, Outputs& o) {
  out.check_no_unknown_keys(
      {"pcap", "pcap_link_packets", "pcap_snaplen", "packet_log", "data_check", "vcd", "vcd_ports", "time_series", "compress"});
  if (auto v = out.find("time_series")) o.time_series = parse_time_series(*v, topo);
  o.vcd = out.optional<bool>("vcd", false);
  for (const YamlValue& v : out.optional_list("vcd_ports")) {
    const std::string ref = v.as<std::string>();
    const auto slash = ref.find('/');
    auto node = slash == std::string::npos ? std::nullopt : topo.find_node(ref.substr(0, slash));
    if (!node) v.fail("NODE/PORT of the topology", "'" + ref + "'");
    o.vcd_ports.push_back(ref);
  }
  o.pcap = out.optional<bool>("pcap", false);
  o.pcap_link_packets = out.optional<bool>("pcap_link_packets", false);
  o.pcap_snaplen = out.optional_in_range<std::uint32_t>("pcap_snaplen", 0, 1, 65535);
  if (o.pcap_snaplen != 0 && !o.pcap) out.get("pcap_snaplen").fail("outputs.pcap: true with it (it cuts the capture's frames)",
                                  "pcap_snaplen without a capture");
  o.packet_log = out.optional<bool>("packet_log", false);
  o.data_check = out.optional<bool>("data_check", false);
  o.compress = out.optional<bool>("compress", false);
}

// Names in the workload must be HCAs of the topology.
void check_hca(const Scenario& s, const std::string& name, const YamlValue& where) {
  auto n = s.topology.find_node(name);
  if (!n || s.topology.nodes[*n].type != NodeType::kHca)
    where.fail("the name of an HCA in " + s.topology_file, "'" + name + "'");
}

void parse_multicast(const YamlMap& m, Scenario& s) {
  for (const YamlValue& g : m.optional_list("multicast")) {
    YamlMap gm = g.as_map();
    gm.check_no_unknown_keys({"name", "members"});
    const std::string name = gm.require<std::string>("name");
    if (s.topology.find_node(name)) gm.get("name").fail("a group name that is not a node name", "'" + name + "'");
    for (const auto& [other, members] : s.multicast)
      if (other == name) gm.get("name").fail("a group name used once", "'" + name + "' again");
    std::vector<std::string> members;
    for (const YamlValue& v : gm.list("members")) {
      check_hca(s, v.as<std::string>(), v);
      members.push_back(v.as<std::string>());
    }
    if (members.empty()) gm.get("members").fail("at least one member");
    s.multicast.emplace_back(name, members);
  }
  if (s.multicast.size() > 0x3FFF) m.fail("at most 16383 multicast groups", std::to_string(s.multicast.size()));
}

// Generator flows: sources are HCAs, the destination an HCA, a multicast group or random; and the
// flow must be able to send at all: a host never sends to itself (nor receives its own multicast),
// so a flow whose one source is its one destination would send nothing.
void check_flow_names(const std::vector<YamlMap>& flow_maps, const Scenario& s) {
  for (std::size_t i = 0; i < flow_maps.size(); ++i) {
    for (const YamlValue& v : flow_maps[i].optional_list("sources")) check_hca(s, v.as<std::string>(), v);
    const WorkloadSpec& w = s.flows[i];
    const std::string& d = w.destination;
    const auto group = std::find_if(s.multicast.begin(), s.multicast.end(), [&](const auto& g) { return g.first == d; });
    if (d != "random" && group == s.multicast.end()) check_hca(s, d, flow_maps[i].get("destination"));
    if (d == "random") continue;
    std::vector<std::string> sources = w.sources;
    if (sources.empty())
      for (std::size_t n : s.topology.hcas()) sources.push_back(s.topology.nodes[n].name);
    const std::vector<std::string> dests = group == s.multicast.end() ? std::vector<std::string>{d} : group->second;
    if (sources.size() == 1 && dests.size() == 1 && sources[0] == dests[0])
      flow_maps[i].get("destination").fail(
          group == s.multicast.end() ? "a destination other than the flow's only source (a host never sends to itself)"
                                     : "a group with a member other than the flow's only source (a member never "
                                       "receives its own packets)",
          "'" + d + "'" + (group == s.multicast.end() ? "" : " (members: " + dests[0] + ")"));
  }
}

// Every workload entry's name (given, or flowN by position) is used once: the results name flows
// by it, and a second flow of the same name would be merged into or hidden behind the first.
void check_unique_flow_names(const std::vector<YamlMap>& all_flow_maps, const Scenario& s) {
  std::vector<std::pair<std::string, std::size_t>> seen;  // name, entry index
  for (std::size_t i = 0; i < s.workload_order.size(); ++i) {
    const auto [kind, k] = s.workload_order[i];
    const std::string& name = kind == Scenario::EntryKind::kGenerator ? s.flows[k].name
                              : kind == Scenario::EntryKind::kVerbs   ? s.verbs_flows[k].name
                                                                      : s.classes[k].name;
    for (const auto& [other, j] : seen) {
      if (other != name) continue;
      const YamlMap& m = all_flow_maps[i];
      const std::string first = all_flow_maps[j].location();
      const std::string got = fmt::format("'{}' again (the name of the flow at {}{})", name, first,
                                          all_flow_maps[j].has("name") ? "" : ", by its position");
      if (auto v = m.find("name")) v->fail("each flow name once", got);
      m.fail("each flow name once (give this flow a name)", got);
    }
    seen.emplace_back(name, i);
  }
}

// Verbs flows: both ends are HCAs whose P_Key tables have the flow's P_Key index.
void check_verbs_flow_hosts(const std::vector<YamlMap>& verbs_maps, const Scenario& s) {
  for (std::size_t i = 0; i < verbs_maps.size(); ++i) {
    const VerbsFlowSpec& f = s.verbs_flows[i];
    check_hca(s, f.from, verbs_maps[i].get("from"));
    check_hca(s, f.to, verbs_maps[i].get("to"));
    // The QP's P_Key index must name an entry of both HCAs' P_Key tables (ibv_modify_qp: EINVAL).
    for (const std::string& h : {f.from, f.to}) {
      HcaConfig c;
      s.hca_model.apply(h, c);
      if (f.qp.pkey_index >= c.p_keys.size())
        verbs_maps[i].map("qp").get("pkey_index").fail(
            "an index into the P_Key table of " + h + ", which has " + std::to_string(c.p_keys.size()) +
                (c.p_keys.size() == 1 ? " entry" : " entries"),
            "'" + std::to_string(f.qp.pkey_index) + "'");
    }
  }
}

}  // namespace

SubnetManagerSettings subnet_manager_settings(const Scenario& sc) {
  const auto cables = sc.topology.port_cables();
  SubnetManagerSettings st;
  st.config = sc.subnet_manager.config;
  if (const auto sw = sc.topology.find_node(sc.subnet_manager.host);
      sw && sc.topology.nodes[*sw].type == NodeType::kSwitch) {
    st.host = *sw;
    st.port = 0;  // a switch's SM runs on its management port
    return st;
  }
  for (std::size_t n : sc.topology.hcas()) {
    if (!sc.subnet_manager.host.empty() && sc.topology.nodes[n].name != sc.subnet_manager.host) continue;
    for (unsigned p = 1; p <= sc.topology.nodes[n].num_ports; ++p)
      if (cables[n][p]) {
        st.host = n;
        st.port = static_cast<PortNum>(p);
        return st;
      }
    if (!sc.subnet_manager.host.empty()) break;
  }
  throw InputError(fmt::format("{}: expected an HCA with a cabled port to run the subnet manager on, got {}", sc.file,
                               sc.subnet_manager.host.empty() ? "none" : "'" + sc.subnet_manager.host + "' without one"));
}

std::vector<SubnetManagerSettings> other_subnet_managers(const Scenario& sc, const SubnetManagerSettings& primary) {
  std::vector<SubnetManagerSettings> out;
  if (sc.topology.routers().empty()) return out;
  const TopologySubnets sub = topology_subnets(sc.topology);
  const int own = sub.of(primary.host, primary.port == 0 ? 0 : primary.port);
  for (std::size_t k = 0; k < sub.count(); ++k) {
    if (static_cast<int>(k) == own) continue;
    std::optional<SubnetManagerSettings> st;
    for (std::size_t n : sub.nodes[k]) {
      const TopoNode& node = sc.topology.nodes[n];
      if (node.type != NodeType::kHca) continue;
      for (unsigned p = 1; p <= node.num_ports && !st; ++p)
        if (sub.of(n, p) == static_cast<int>(k)) st = SubnetManagerSettings{n, static_cast<PortNum>(p), primary.config};
      if (st) break;
    }
    if (!st)
      for (std::size_t n : sub.nodes[k])
        if (sc.topology.nodes[n].type == NodeType::kSwitch) {
          st = SubnetManagerSettings{n, 0, primary.config};
          break;
        }
    if (st) out.push_back(*st);
  }
  return out;
}

Scenario load_scenario(const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides) {
  YAML::Node root = load_yaml_file(path, "a scenario file");
  if (!root.IsDefined() || root.IsNull())
    throw InputError(fmt::format("{}: expected a scenario (a map with at least topology), got an empty file", path));
  // `--set topology.KEY=VALUE` overrides KEY of the topology file; `--set topology=FILE` names another.
  std::vector<std::pair<std::string, std::string>> topology_overrides;
  for (const auto& [key, value] : overrides) {
    if (key.rfind("topology.", 0) == 0) topology_overrides.emplace_back(key.substr(9), value);
    else apply_override(root, key, value);
  }
  return parse_scenario(root, path, topology_overrides);
}

Scenario parse_scenario(const YAML::Node& root, const std::string& path,
                        const std::vector<std::pair<std::string, std::string>>& topology_overrides) {
  YamlMap m(root, path);
  m.check_no_unknown_keys(
      {"topology", "seed", "workload", "phases", "outputs", "link", "faults", "multicast", "phy", "hca_model",
       "congestion_control", "subnet_manager", "attacks", "simulation", "collectives", "ipoib",
        "cm", "trace", "shared_receive_queue", "intra_node", "fabric", "roce"});
  Scenario s;
  s.file = path;
  YamlValue topo = m.get("topology");
  std::filesystem::path tp = topo.as<std::string>();
  if (tp.is_relative()) tp = std::filesystem::path(path).parent_path() / tp;
  s.topology_file = tp.lexically_normal().string();
  std::error_code ec;
  if (!std::filesystem::exists(s.topology_file, ec)) topo.fail("the path of a topology file", "'" + s.topology_file + "' (no such file)");
  if (std::filesystem::is_directory(s.topology_file, ec)) topo.fail("the path of a topology file", "'" + s.topology_file + "' (a folder)");
  s.topology = load_topology_file(s.topology_file, topology_overrides);  // YAML, ibnetdiscover or ibsim
  s.seed = m.optional<std::uint64_t>("seed", s.seed);
  s.simulation = parse_simulation(m.optional_map("simulation"));
  const std::vector<YamlMap> all_flow_maps = workload_maps(m);
  // transport rc, uc or ud: a verbs flow; ud_send (the default): the UD traffic generator.
  const bool data_check = m.optional_map("outputs").optional<bool>("data_check", false);
  const WorkloadMaps maps = parse_workload_entries(all_flow_maps, data_check, s);
  check_unique_flow_names(all_flow_maps, s);
  s.link = parse_link(m.optional_map("link"));
  parse_phy(m.optional_map("phy"), s.topology, s.phy);
  s.faults = parse_faults(m.optional_list("faults"), s.topology);
  s.subnet_manager = parse_subnet_manager(m, s.topology);
  if (auto v = m.find("congestion_control")) s.congestion_control = parse_congestion_control(v->as_map(), s.topology);
  parse_phases(m.optional_map("phases"), s.phases);
  parse_outputs(m.optional_map("outputs"), s.topology, s.outputs);
  parse_multicast(m, s);
  s.ipoib = parse_ipoib(m, s);
  check_flow_names(maps.flows, s);
  s.hca_model = parse_hca_model(m.optional_map("hca_model"), s.topology);
  check_verbs_flow_hosts(maps.verbs, s);
  s.cm = parse_cm(m.optional_map("cm"));
  check_cm_flows(maps.verbs, s.verbs_flows, s.subnet_manager.in_band);
  s.srq = parse_srq(m.optional_map("shared_receive_queue"));
  s.attacks = parse_attacks(m.optional_list("attacks"), s);
  if (auto in = m.find("intra_node")) s.intra_node = parse_intra_node(*in, s.topology);
  if (m.has("collectives")) {
    const YamlValue c = m.get("collectives");
    s.collectives = parse_collectives(c.as_list(), s);
    if (s.collectives.empty()) c.fail("at least one collective");
    for (NcclCollectiveSpec& spec : s.collectives) spec.intra_node = s.intra_node;
  }
  if (auto t = m.find("trace")) s.trace = parse_trace_replay(t->as_map(), s);
  if (s.topology.hcas().size() < 2) m.fail("a topology with at least two HCAs", "fewer");
  s.warnings = topology_warnings(s.topology);
  const RoutingEngine engine = s.subnet_manager.config.sweep.routing.engine;
  if (s.subnet_manager.adaptive_routing_given && !is_adaptive_engine(engine))
    s.warnings.push_back(fmt::format("subnet_manager.adaptive_routing has no effect with routing: {} (only ar_ftree "
                                     "and ar_updn give the switches adaptive routing groups)",
                                     routing_engine_name(engine)));
  if (!s.subnet_manager.in_band)
    if (const std::size_t levels = tree_switch_levels(s.topology); levels >= 3)
      s.warnings.push_back(fmt::format(
          "subnet_manager: static routes this {}-level tree min-hop per switch, which leaves its upper levels "
          "unbalanced (some top-level ports carry many times their share, and the fabric saturates early); for even "
          "routes use the in-band subnet manager with routing: ftree",
          levels));
  // Random destinations need every host reachable from every other, and verbs flows their two hosts.
  for (const WorkloadSpec& w : s.flows)
    if (w.destination == "random") {
      require_connected(s.topology);
      break;
    }
  if (!s.verbs_flows.empty() || !s.classes.empty() || !s.collectives.empty() || s.trace) require_connected(s.topology);
  parse_fabric_kind(m, s);
  return s;
}

}  // namespace ibfsim
