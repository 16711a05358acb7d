#include "sim/workload/subnet_manager_spec.h"

#include <filesystem>

#include "sim/subnet_manager/routing/guid_list_file.h"
#include "sim/subnet_manager/routing/routing_engine.h"

namespace ibfsim {

namespace {

SmaTiming parse_sma_timing(const YamlMap& m, SmaTiming t) {
  t.process = m.duration("latency", t.process);
  t.dr_forward = m.duration("dr_forward", t.dr_forward);
  t.queue_depth = m.optional_in_range<unsigned>("queue_depth", t.queue_depth, 0, 1u << 20);
  return t;
}

// `subnet_manager.adaptive_routing` (docs/scenario.md): what the SM programs into the switches.
ArSweepSettings parse_adaptive_routing(const YamlMap& m) {
  m.check_no_unknown_keys({"sls", "flowlet_gap", "credit_levels", "flowlet_margin", "fast_recovery", "notification_latency",
                           "congestion_threshold", "congestion_hold"});
  ArSweepSettings a;
  if (auto sls = m.find("sls")) {
    const std::vector<YamlValue> list = sls->as_list();
    if (list.empty()) sls->fail("a list of SLs 0..15 (leave the key out for every SL)", "an empty list");
    a.sl_mask = 0;
    for (const YamlValue& v : list) {
      const auto sl = v.as_in_range<unsigned>(0, 15);
      if (a.sl_mask >> sl & 1) v.fail("each SL once", "SL " + std::to_string(sl) + " again");
      a.sl_mask = static_cast<std::uint16_t>(a.sl_mask | 1u << sl);
    }
  }
  a.flowlet_gap = m.duration("flowlet_gap", 0);
  if (a.flowlet_gap % kNs != 0 || a.flowlet_gap / kNs > 0xFFFFFFFFu)
    m.get("flowlet_gap").fail("a whole number of ns up to 4294967295ns (AdaptiveRoutingInfo.FlowletGap)");
  a.credit_levels = m.optional_in_range<std::uint8_t>("credit_levels", a.credit_levels, 0, 255);
  a.flowlet_margin = m.optional_in_range<std::uint8_t>("flowlet_margin", a.flowlet_margin, 1, 255);
  a.fast_recovery = m.optional<bool>("fast_recovery", a.fast_recovery);
  a.notification_latency = m.duration("notification_latency", a.notification_latency);
  a.congestion_threshold = m.optional_in_range<std::uint16_t>("congestion_threshold", a.congestion_threshold, 0, 0xFFFF);
  a.congestion_hold = m.duration("congestion_hold", a.congestion_hold);
  if (a.congestion_hold % kNs != 0 || a.congestion_hold / kNs > 0xFFFFFFFFu)
    m.get("congestion_hold").fail("a whole number of ns up to 4294967295ns (AdaptiveRoutingInfo.CongestionHold)");
  if (a.congestion_threshold != 0 && a.congestion_hold == 0)
    m.get("congestion_threshold").fail("congestion_hold too (how long a notification holds), or threshold 0 (off)");
  return a;
}

}  // namespace

SubnetManagerSpec parse_subnet_manager(const YamlMap& root, const Topology& topo) {
  SubnetManagerSpec sm;
  auto v = root.find("subnet_manager");
  if (v && v->is_scalar()) {
    if (v->as<std::string>() != "static") v->fail("static, or a map of subnet manager settings");
    if (!topo.routers().empty())
      v->fail("a map of subnet manager settings (routers need the in-band subnet managers, one per subnet)");
    sm.in_band = false;
    return sm;
  }
  YamlMap m = root.optional_map("subnet_manager");
  m.check_no_unknown_keys({"host", "routing", "lmc", "roots", "root_guid_file", "cn_guid_file", "lft_file",
                           "nue_max_vls", "max_wire_smps", "smp_timeout", "smp_retries", "sweep_interval", "m_key",
                           "m_key_protect_bits", "m_key_lease_period", "sma", "sa", "adaptive_routing"});
  if (auto h = m.find("host")) {
    sm.host = h->as<std::string>();
    const auto n = topo.find_node(sm.host);
    if (!n) h->fail("the name of an HCA or switch to run the subnet manager on", "'" + sm.host + "'");
  }
  RoutingOptions& ro = sm.config.sweep.routing;
  if (auto r = m.find("routing")) {
    const auto e = parse_routing_engine(r->as<std::string>());
    if (!e) r->fail("a routing engine: " + routing_engine_names());
    ro.engine = *e;
  }
  sm.config.sweep.lmc = m.optional_in_range<unsigned>("lmc", 0, 0, 7);
  const RoutingEngine base = static_engine(ro.engine);
  const bool rooted = base == RoutingEngine::kUpdn || base == RoutingEngine::kFtree;
  for (const YamlValue& r : m.optional_list("roots")) {
    if (!rooted) r.fail("roots only with routing: updn, ftree, ar_updn or ar_ftree");
    const auto n = topo.find_node(r.as<std::string>());
    if (!n || topo.nodes[*n].type != NodeType::kSwitch) r.fail("the name of a switch", "'" + r.as<std::string>() + "'");
    ro.roots.push_back(topo.nodes[*n].guid);
  }
  // OpenSM's GUID list files (its -a and -u), relative to the scenario file.
  auto guid_file = [&](const YamlValue& f) {
    std::filesystem::path fp = f.as<std::string>();
    if (fp.is_relative()) fp = std::filesystem::path(root.file()).parent_path() / fp;
    if (!std::filesystem::exists(fp)) f.fail("the path of a GUID list file", "'" + fp.string() + "' (no such file)");
    return read_guid_list_file(fp.lexically_normal().string());
  };
  if (auto f = m.find("root_guid_file")) {
    if (!rooted) f->fail("root_guid_file only with routing: updn, ftree, ar_updn or ar_ftree");
    if (m.has("roots")) f->fail("roots or root_guid_file, not both");
    ro.roots = guid_file(*f);
  }
  if (auto f = m.find("cn_guid_file")) {
    if (base != RoutingEngine::kFtree) f->fail("cn_guid_file only with routing: ftree or ar_ftree");
    ro.compute_nodes = guid_file(*f);
  }
  if (auto f = m.find("lft_file")) {
    if (ro.engine != RoutingEngine::kFile) f->fail("lft_file only with routing: file");
    std::filesystem::path fp = f->as<std::string>();
    if (fp.is_relative()) fp = std::filesystem::path(root.file()).parent_path() / fp;
    std::error_code ec;
    if (!std::filesystem::exists(fp, ec)) f->fail("the path of an LFT dump", "'" + fp.string() + "' (no such file)");
    if (std::filesystem::is_directory(fp, ec)) f->fail("the path of an LFT dump", "'" + fp.string() + "' (a folder)");
    ro.lft_file = fp.lexically_normal().string();
  } else if (ro.engine == RoutingEngine::kFile) {
    m.get("routing").fail("lft_file naming the LFT dump with routing: file", "none");
  }
  if (auto f = m.find("nue_max_vls")) {
    if (ro.engine != RoutingEngine::kNue) f->fail("nue_max_vls only with routing: nue");
    ro.nue_max_vls = m.optional_in_range<unsigned>("nue_max_vls", 1, 0, 15);
  }
  sm.config.max_wire_smps = m.optional_in_range<unsigned>("max_wire_smps", sm.config.max_wire_smps, 1, 1u << 16);
  sm.config.smp_timeout = m.duration("smp_timeout", sm.config.smp_timeout);
  if (sm.config.smp_timeout == 0) m.get("smp_timeout").fail("a timeout longer than 0");
  sm.config.smp_retries = m.optional_in_range<unsigned>("smp_retries", sm.config.smp_retries, 0, 100);
  sm.config.sweep_interval = m.duration("sweep_interval", sm.config.sweep_interval);
  SmSweepConfig& sweep = sm.config.sweep;
  sweep.m_key = m.optional<std::uint64_t>("m_key", 0);
  sweep.m_key_protect_bits = m.optional_in_range<std::uint8_t>("m_key_protect_bits", 0, 0, 3);
  sweep.m_key_lease_period = m.optional<std::uint16_t>("m_key_lease_period", 0);
  for (const char* k : {"m_key_protect_bits", "m_key_lease_period"})
    if (sweep.m_key == 0 && m.has(k)) m.get(k).fail(std::string("a nonzero m_key beside ") + k + " (it protects the M_Key)", "no m_key");
  if (auto a = m.find("adaptive_routing")) {
    sweep.adaptive_routing = parse_adaptive_routing(a->as_map());
    sm.adaptive_routing_given = true;
  }
  YamlMap sa = m.optional_map("sa");
  sa.check_no_unknown_keys({"latency", "packet_life_time", "subscribers"});
  sm.config.sa_latency = sa.duration("latency", sm.config.sa_latency);
  sm.config.sa.packet_life_time =
      sa.optional_in_range<std::uint8_t>("packet_life_time", sm.config.sa.packet_life_time, 0, 63);
  if (auto subs = sa.find("subscribers"); subs && !topo.routers().empty())
    subs->fail("no subscribers with routers (the SA of one subnet only is modelled for them)");
  for (const YamlValue& v : sa.optional_list("subscribers")) {
    YamlMap one = v.as_map();
    one.check_no_unknown_keys({"host", "traps"});
    SaSubscriberSpec sub;
    const YamlValue host = one.get("host");
    sub.host = host.as<std::string>();
    const auto n = topo.find_node(sub.host);
    if (!n || topo.nodes[*n].type != NodeType::kHca) host.fail("the name of an HCA", "'" + sub.host + "'");
    if (sub.host == sm.host)  // the default SM host is checked when the run starts (sa_subscribers.h)
      host.fail("an HCA other than the subnet manager's (a client on the SM's own node is not supported)",
                "'" + sub.host + "'");
    const YamlValue traps = one.get("traps");
    if (traps.is_scalar()) {
      if (traps.as<std::string>() != "all") traps.fail("all, or a list of trap numbers");
      sub.traps.push_back(0xFFFF);
    } else {
      for (const YamlValue& t : traps.as_list()) sub.traps.push_back(t.as_in_range<std::uint16_t>(0, 0xFFFE));
      if (sub.traps.empty()) traps.fail("all, or a list of trap numbers", "an empty list");
    }
    sm.subscribers.push_back(sub);
  }
  YamlMap sma = m.optional_map("sma");
  sma.check_no_unknown_keys({"latency", "dr_forward", "queue_depth", "nodes"});
  sm.sma = parse_sma_timing(sma, sm.sma);
  if (auto nodes = sma.find("nodes")) {
    YamlMap nm = nodes->as_map();
    for (auto it = nm.node().begin(); it != nm.node().end(); ++it) {
      const std::string name = it->first.as<std::string>();
      const YamlValue node_value = nm.get(name);
      if (!topo.find_node(name)) node_value.fail("settings of a node of the topology", "'" + name + "'");
      YamlMap one = node_value.as_map();
      one.check_no_unknown_keys({"latency", "dr_forward", "queue_depth"});
      sm.sma_by_node.emplace_back(name, parse_sma_timing(one, sm.sma));
    }
  }
  return sm;
}

}  // namespace ibfsim
