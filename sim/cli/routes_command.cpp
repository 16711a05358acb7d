#include "sim/cli/routes_command.h"

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/fabric/subnet_graph_from_topology.h"
#include "sim/fabric/topology_loader.h"
#include "sim/subnet_manager/lid_assignment.h"
#include "sim/subnet_manager/routes_report.h"
#include "sim/subnet_manager/routing_engine.h"

namespace ibfsim {

CLI::App* add_routes_subcommand(CLI::App& app, RoutesOptions& opts) {
  CLI::App* cmd = app.add_subcommand(
      "routes", "Subnet manager bring-up only: LIDs and LFTs in OpenSM's formats, and a deadlock check");
  cmd->add_option("SCENARIO", opts.scenario, "Scenario whose fabric to bring up in-band (not available yet)");
  cmd->add_option("--topology", opts.topology,
                  "Topology file (YAML, ibnetdiscover or ibsim net file): compute LIDs and routes offline");
  cmd->add_option("--routing", opts.routing, "Routing engine: " + routing_engine_names() + " (default minhop)");
  cmd->add_option("--lmc", opts.lmc, "LID mask control 0..7: 2^LMC LIDs per HCA port (default 0)");
  cmd->add_option("--sm-host", opts.sm_host, "HCA the SM runs on (default: the first HCA with a cabled port)");
  cmd->add_option("--root", opts.roots, "updn: a root switch by name (repeatable; default: found automatically)");
  cmd->add_option("--lft-file", opts.lft_file, "routing file: the LFT dump (OpenSM's opensm-lfts.dump format) to load");
  cmd->add_flag("--guid2lid", opts.guid2lid, "Also print the LIDs in OpenSM's guid2lid format (after the LFTs)");
  cmd->add_flag("--deadlock-check", opts.deadlock_check,
                "Also check the routes' channel dependency graph for cycles, per VL, and print any cycle");
  cmd->add_flag("--no-lfts", opts.no_lfts, "Do not print the LFTs");
  return cmd;
}

int run_routes_command(const RoutesOptions& opts, std::ostream& out, std::ostream& err) {
  if (!opts.scenario.empty() && !opts.topology.empty())
    throw InputError("ibfsim routes: expected either a SCENARIO or --topology FILE, got both");
  if (!opts.scenario.empty()) {
    throw InputError(fmt::format("ibfsim routes {}: in-band bring-up of a scenario is not available yet; use "
                                 "--topology FILE for the offline computation", opts.scenario));
  }
  if (opts.topology.empty()) throw InputError("ibfsim routes: expected a SCENARIO or --topology FILE, got neither");
  const auto engine = parse_routing_engine(opts.routing);
  if (!engine) {
    throw InputError(fmt::format("--routing: expected one of {}, got '{}'", routing_engine_names(), opts.routing));
  }
  if (opts.lmc > kMaxLmc) throw InputError(fmt::format("--lmc: expected 0..{}, got {}", kMaxLmc, opts.lmc));
  if (*engine == RoutingEngine::kFile && opts.lft_file.empty())
    throw InputError("--routing file: expected --lft-file DUMP naming the LFT dump to load");
  if (*engine != RoutingEngine::kFile && !opts.lft_file.empty())
    throw InputError(fmt::format("--lft-file: only used with --routing file, got --routing {}", opts.routing));
  if (*engine != RoutingEngine::kUpdn && !opts.roots.empty())
    throw InputError(fmt::format("--root: only used with --routing updn, got --routing {}", opts.routing));

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
    if (sm_port == 0) sm_port = 1;  // subnet_graph_from_topology names what is wrong
  }
  SubnetGraph g = subnet_graph_from_topology(topo, sm_node, sm_port).graph;
  assign_lids(g, opts.lmc);

  RoutingOptions ro;
  ro.engine = *engine;
  ro.lft_file = opts.lft_file;
  for (const std::string& name : opts.roots) {
    const auto n = g.find_node(name);
    if (!n || !g.nodes[*n].is_switch())
      throw InputError(fmt::format("--root: expected a switch of {} reachable from the SM, got '{}'", opts.topology, name));
    ro.roots.push_back(g.nodes[*n].node_guid);
  }
  const RoutingTables t = compute_routes(g, ro);
  for (const std::string& note : t.notes) err << "note: " << note << "\n";
  RoutesReportOptions report;
  report.lfts = !opts.no_lfts;
  report.guid2lid = opts.guid2lid;
  report.deadlock_check = opts.deadlock_check;
  write_routes_report(out, g, t, report);
  return 0;
}

}  // namespace ibfsim
