#include "sim/cli/routes_command.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/fabric/ethernet_deadlock_check.h"
#include "sim/fabric/ethernet_topology.h"
#include "sim/fabric/subnet_graph_from_topology.h"
#include "sim/fabric/topology_loader.h"
#include "sim/subnet_manager/sm/lid_assignment.h"
#include "sim/subnet_manager/sm/routes_report.h"
#include "sim/subnet_manager/routing/guid_list_file.h"
#include "sim/subnet_manager/routing/routing_engine.h"
#include "sim/fabric/yaml_input.h"
#include "sim/workload/bring_up.h"
#include "sim/workload/roce_spec.h"
#include "sim/workload/scenario.h"
#include "sim/workload/simulation_spec.h"

namespace ibfsim {

namespace {

// fabric: roce: no subnet manager; the static L3 routes of the topology's plan, checked for
// deadlock (the only report there is: the routes are shortest paths, every ECMP next hop).
int run_routes_roce(const RoutesOptions& opts, const Scenario& sc, std::ostream& out, std::ostream& err) {
  if (!opts.deadlock_check)
    throw InputError(fmt::format("{}: fabric: roce has no subnet manager and no LFTs: expected --deadlock-check "
                                 "(the check of its L3 routes)", opts.scenario));
  const auto refuse = [&](bool given, const char* flag) {
    if (given) throw InputError(fmt::format("{}: only used on InfiniBand, got it with fabric: roce", flag));
  };
  refuse(!opts.routing.empty(), "--routing");
  refuse(opts.lmc.has_value(), "--lmc");
  refuse(!opts.sm_host.empty(), "--sm-host");
  refuse(!opts.roots.empty(), "--root");
  refuse(!opts.root_guid_file.empty(), "--root-guid-file");
  refuse(!opts.cn_guid_file.empty(), "--cn-guid-file");
  refuse(!opts.lft_file.empty(), "--lft-file");
  refuse(opts.nue_max_vls.has_value(), "--nue-max-vls");
  refuse(opts.guid2lid, "--guid2lid");
  refuse(opts.path_sls, "--path-sls");
  refuse(opts.ar_groups, "--ar-groups");
  const EthernetFabricPlan plan = ethernet_plan_from_topology(sc.topology, sc.seed, sc.roce.rate);
  // The run's data frames carry one priority (the PCP, or the DSCP's class selector); only a
  // lossless one can deadlock (a lossy one drops instead).
  const unsigned priority = roce_data_priority(sc.roce);
  std::vector<unsigned> lossless;
  if (sc.roce.pfc.on(priority)) lossless.push_back(priority);
  else
    err << fmt::format("note: the RoCE frames' priority {} is not lossless (roce.pfc): a full buffer drops, "
                       "nothing deadlocks\n", priority);
  out << format_ethernet_deadlock_report(plan, check_ethernet_deadlock(plan, lossless));
  return 0;
}

// In-band: the scenario's bring-up, the routing options as overrides of its subnet_manager keys.
int run_routes_scenario(const RoutesOptions& opts, std::ostream& out, std::ostream& err) {
  std::vector<std::pair<std::string, std::string>> overrides;
  for (const std::string& s : opts.sets) overrides.push_back(split_override(s));
  if (!opts.threads.empty()) {
    if (!threads_from_text(opts.threads))
      throw InputError("--threads " + opts.threads + ": expected a number of threads from 1 to 1024, or auto");
    overrides.emplace_back("simulation.threads", opts.threads);
  }
  const std::size_t own_keys = overrides.size();
  if (!opts.routing.empty()) overrides.emplace_back("subnet_manager.routing", opts.routing);
  if (opts.lmc) overrides.emplace_back("subnet_manager.lmc", std::to_string(*opts.lmc));
  if (!opts.sm_host.empty()) overrides.emplace_back("subnet_manager.host", opts.sm_host);
  if (!opts.lft_file.empty()) overrides.emplace_back("subnet_manager.lft_file", opts.lft_file);
  if (opts.nue_max_vls) overrides.emplace_back("subnet_manager.nue_max_vls", std::to_string(*opts.nue_max_vls));
  if (!opts.root_guid_file.empty()) overrides.emplace_back("subnet_manager.root_guid_file", opts.root_guid_file);
  if (!opts.cn_guid_file.empty()) overrides.emplace_back("subnet_manager.cn_guid_file", opts.cn_guid_file);
  if (!opts.roots.empty()) {
    std::string list = "[";
    for (std::size_t i = 0; i < opts.roots.size(); ++i) list += (i ? ", " : "") + opts.roots[i];
    overrides.emplace_back("subnet_manager.roots", list + "]");
  }
  if (overrides.size() > own_keys) {
    // The routing options become subnet_manager keys, which fabric: roce refuses: say which option.
    const Scenario plain = load_scenario(opts.scenario, {overrides.begin(), overrides.begin() + own_keys});
    if (plain.fabric == FabricKind::kRoce) return run_routes_roce(opts, plain, out, err);
  }
  const Scenario sc = load_scenario(opts.scenario, overrides);
  for (const std::string& w : sc.warnings) err << "warning: " << w << "\n";
  if (sc.fabric == FabricKind::kRoce) return run_routes_roce(opts, sc, out, err);
  const BringUpResult r = bring_up_scenario(sc);
  for (const std::string& note : r.notes) err << "note: " << note << "\n";
  err << fmt::format("note: in-band bring-up took {} of simulated time and {} SMPs\n", format_duration(r.done), r.smps);
  RoutesReportOptions report;
  report.lfts = !opts.no_lfts;
  report.guid2lid = opts.guid2lid;
  report.path_sls = opts.path_sls;
  report.deadlock_check = opts.deadlock_check;
  report.ar_groups = opts.ar_groups;
  write_routes_report(out, r.graph, r.tables, report);
  return 0;
}

}  // namespace

CLI::App* add_routes_subcommand(CLI::App& app, RoutesOptions& opts) {
  CLI::App* cmd = app.add_subcommand(
      "routes", "Subnet manager bring-up only: LIDs and LFTs in OpenSM's formats, and a deadlock check");
  cmd->add_option("SCENARIO", opts.scenario, "Scenario whose fabric to bring up in-band (the SM's SMPs on the simulated fabric)");
  cmd->add_option("--set", opts.sets, "With a SCENARIO: override a scenario key (repeatable)");
  cmd->add_option("--topology", opts.topology,
                  "Topology file (YAML, ibnetdiscover or ibsim net file): compute LIDs and routes offline");
  cmd->add_option("--routing", opts.routing, "Routing engine: " + routing_engine_names() + " (default minhop)");
  cmd->add_option("--lmc", opts.lmc, "LID mask control 0..7: 2^LMC LIDs per HCA port (default 0)");
  cmd->add_option("--sm-host", opts.sm_host,
                  "HCA or switch the SM runs on (default: the first HCA with a cabled port)");
  cmd->add_option("--root", opts.roots,
                  "updn, ftree: a root switch by name (repeatable; default: updn finds them, ftree ranks from the CAs)");
  cmd->add_option("--root-guid-file", opts.root_guid_file,
                  "updn, ftree: the root switches' GUIDs, one a line (OpenSM's root_guid_file, opensm -a)");
  cmd->add_option("--cn-guid-file", opts.cn_guid_file,
                  "ftree: the compute nodes' port GUIDs, one a line (OpenSM's cn_guid_file, opensm -u)");
  cmd->add_option("--lft-file", opts.lft_file, "routing file: the LFT dump (OpenSM's opensm-lfts.dump format) to load");
  cmd->add_option("--threads", opts.threads,
                  "With a SCENARIO: threads of the bring-up's simulation, 1..1024 or auto (default: the scenario's "
                  "simulation.threads); the report is the same with any number")
      ->type_name("N|auto");
  cmd->add_option("--nue-max-vls", opts.nue_max_vls,
                  "nue: the layers it may use (OpenSM's nue_max_num_vls; default 1, 0: every VL the fabric has)");
  cmd->add_flag("--guid2lid", opts.guid2lid, "Also print the LIDs in OpenSM's guid2lid format (after the LFTs)");
  cmd->add_flag("--path-sls", opts.path_sls,
                "Also print every path's SL (SLID DLID SL, or FIRST-LAST where the engine allows several)");
  cmd->add_flag("--deadlock-check", opts.deadlock_check,
                "Also check the routes' channel dependency graph for cycles, per VL, and print any cycle");
  cmd->add_flag("--ar-groups", opts.ar_groups,
                "Also print each switch's adaptive routing groups and the LIDs routed by them (ar_ftree, ar_updn)");
  cmd->add_flag("--no-lfts", opts.no_lfts, "Do not print the LFTs");
  return cmd;
}

int run_routes_command(const RoutesOptions& opts, std::ostream& out, std::ostream& err) {
  if (!opts.scenario.empty() && !opts.topology.empty())
    throw InputError("ibfsim routes: expected either a SCENARIO or --topology FILE, got both");
  if (!opts.scenario.empty()) return run_routes_scenario(opts, out, err);
  if (opts.topology.empty()) throw InputError("ibfsim routes: expected a SCENARIO or --topology FILE, got neither");
  if (!opts.sets.empty()) throw InputError("--set: only used with a SCENARIO, got --topology");
  if (!opts.threads.empty())
    throw InputError("--threads: only used with a SCENARIO (its in-band bring-up is simulated), got --topology");
  const std::string routing = opts.routing.empty() ? "minhop" : opts.routing;
  const auto engine = parse_routing_engine(routing);
  if (!engine) {
    throw InputError(fmt::format("--routing: expected one of {}, got '{}'", routing_engine_names(), routing));
  }
  const unsigned lmc = opts.lmc.value_or(0);
  if (lmc > kMaxLmc) throw InputError(fmt::format("--lmc: expected 0..{}, got {}", kMaxLmc, lmc));
  if (*engine == RoutingEngine::kFile && opts.lft_file.empty())
    throw InputError("--routing file: expected --lft-file DUMP naming the LFT dump to load");
  if (*engine != RoutingEngine::kFile && !opts.lft_file.empty())
    throw InputError(fmt::format("--lft-file: only used with --routing file, got --routing {}", routing));
  const bool rooted = static_engine(*engine) == RoutingEngine::kUpdn || static_engine(*engine) == RoutingEngine::kFtree;
  if (!rooted && !opts.roots.empty())
    throw InputError(fmt::format("--root: only used with --routing updn or ftree, got --routing {}", routing));
  if (!rooted && !opts.root_guid_file.empty())
    throw InputError(fmt::format("--root-guid-file: only used with --routing updn or ftree, got --routing {}", routing));
  if (!opts.roots.empty() && !opts.root_guid_file.empty())
    throw InputError("--root and --root-guid-file: expected one of them, got both");
  if (static_engine(*engine) != RoutingEngine::kFtree && !opts.cn_guid_file.empty())
    throw InputError(fmt::format("--cn-guid-file: only used with --routing ftree, got --routing {}", routing));
  if (*engine != RoutingEngine::kNue && opts.nue_max_vls)
    throw InputError(fmt::format("--nue-max-vls: only used with --routing nue, got --routing {}", routing));
  if (opts.nue_max_vls && *opts.nue_max_vls > 15)
    throw InputError(fmt::format("--nue-max-vls: expected 0..15, got {}", *opts.nue_max_vls));

  const Topology topo = load_topology_file(opts.topology);
  const auto cables = topo.port_cables();
  std::size_t sm_node = 0;
  unsigned sm_port = 0;
  if (opts.sm_host.empty()) {
    for (std::size_t n : topo.hcas()) {
      for (unsigned p = 1; p <= topo.nodes[n].num_ports && sm_port == 0; ++p)
        if (cables[n][p]) sm_port = p;
      if (sm_port != 0) {
        sm_node = n;
        break;
      }
    }
    if (sm_port == 0) throw InputError(fmt::format("{}: expected an HCA with a cabled port to run the SM on, got none", opts.topology));
  } else {
    const auto n = topo.find_node(opts.sm_host);
    if (!n) throw InputError(fmt::format("--sm-host: expected a node of {}, got '{}'", opts.topology, opts.sm_host));
    sm_node = *n;
    if (topo.nodes[sm_node].type == NodeType::kHca) {
      for (unsigned p = 1; p <= topo.nodes[sm_node].num_ports && sm_port == 0; ++p)
        if (cables[sm_node][p]) sm_port = p;
    }
    // An HCA without a cabled port: subnet_graph_from_topology names what is wrong. A switch runs
    // the SM on its management port 0.
    if (sm_port == 0 && topo.nodes[sm_node].type == NodeType::kHca) sm_port = 1;
  }
  SubnetGraph g = subnet_graph_from_topology(topo, sm_node, sm_port).graph;
  assign_lids(g, lmc);

  RoutingOptions ro;
  ro.engine = *engine;
  ro.lft_file = opts.lft_file;
  for (const std::string& name : opts.roots) {
    const auto n = g.find_node(name);
    if (!n || !g.nodes[*n].is_switch())
      throw InputError(fmt::format("--root: expected a switch of {} reachable from the SM, got '{}'", opts.topology, name));
    ro.roots.push_back(g.nodes[*n].node_guid);
  }
  if (!opts.root_guid_file.empty()) ro.roots = read_guid_list_file(opts.root_guid_file);
  if (!opts.cn_guid_file.empty()) ro.compute_nodes = read_guid_list_file(opts.cn_guid_file);
  ro.nue_max_vls = opts.nue_max_vls.value_or(1);
  const RoutingTables t = compute_routes(g, ro);
  for (const std::string& note : t.notes) err << "note: " << note << "\n";
  RoutesReportOptions report;
  report.lfts = !opts.no_lfts;
  report.guid2lid = opts.guid2lid;
  report.path_sls = opts.path_sls;
  report.deadlock_check = opts.deadlock_check;
  report.ar_groups = opts.ar_groups;
  write_routes_report(out, g, t, report);
  return 0;
}

}  // namespace ibfsim
