// In-band subnet manager bring-up of a large fabric: the SM on the first HCA discovers the fabric
// with directed-route SMPs, assigns LIDs, computes routes, programs every LFT and walks every port
// Init -> Armed -> Active, all on the simulated fabric. Prints the wall time (building the fabric,
// and the bring-up itself), the simulated bring-up time, the SMPs sent, and the peak memory.
//
//   bring_up_bench [--topology FILE] [--routing ENGINE] [--max-wire-smps N] [--no-training]
//
// Default topology: topologies/fat_tree_3level_11664.yaml (11,664 hosts, 1,620 switches).
// Figures only; nothing here passes or fails on time (targets: under 60 s wall, under 8 GB).
#include <fmt/format.h>
#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <string>

#include <systemc>

#include "sim/core/calendar_process.h"
#include "sim/fabric/fabric.h"
#include "sim/fabric/topology_loader.h"
#include "sim/subnet_manager/routing/routing_engine.h"

using namespace ibfsim;

int sc_main(int argc, char** argv) {
  std::string topo_file = std::string(IBFSIM_SOURCE_DIR) + "/topologies/fat_tree_3level_11664.yaml";
  std::string routing = "minhop";
  unsigned max_wire = 4;
  bool training = true;
  for (int i = 1; i < argc; ++i) {
    const std::string k = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) {
        fmt::print(stderr, "{} needs a value\n", k);
        std::exit(2);
      }
      return argv[++i];
    };
    if (k == "--topology") topo_file = value();
    else if (k == "--routing") routing = value();
    else if (k == "--max-wire-smps") max_wire = static_cast<unsigned>(std::stoul(value()));
    else if (k == "--no-training") training = false;
    else {
      fmt::print(stderr, "unknown option {}\n", k);
      return 2;
    }
  }
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  const auto t0 = std::chrono::steady_clock::now();
  const Topology topo = load_topology_file(topo_file);
  FabricOptions o;
  o.link.training_delay = training;
  SubnetManagerSettings sm;
  const auto cables = topo.port_cables();
  for (std::size_t n : topo.hcas())
    if (cables[n][1]) {
      sm.host = n;
      break;
    }
  sm.config.sweep.routing.engine = *parse_routing_engine(routing);
  sm.config.max_wire_smps = max_wire;
  o.subnet_manager = sm;
  Fabric* fabric = new Fabric(topo, o);  // SystemC modules live until the process ends
  fabric->subnet_manager()->set_on_sweep_done([](const SweepRecord&) { CalendarProcess::pause(); });
  const auto t1 = std::chrono::steady_clock::now();
  CalendarProcess::run_for(1000 * kSec);  // the sweep ends long before
  ScheduledModule::rethrow_failure();
  const auto t2 = std::chrono::steady_clock::now();
  SubnetManager& s = *fabric->subnet_manager();
  if (!s.configured()) {
    fmt::print(stderr, "the subnet manager did not finish its sweep\n");
    return 1;
  }
  const SweepRecord& r = s.sweeps().front();
  std::size_t active = 0, ports = 0;
  for (const TopoCable& c : topo.cables) {
    ports += 2;
    active += (fabric->port(c.node_a, c.port_a).state() == PortState::kActive) +
              (fabric->port(c.node_b, c.port_b).state() == PortState::kActive);
  }
  rusage ru{};
  getrusage(RUSAGE_SELF, &ru);
  const double build_s = std::chrono::duration<double>(t1 - t0).count();
  const double run_s = std::chrono::duration<double>(t2 - t1).count();
  fmt::print("topology: {} ({} HCAs, {} switches, {} cables), SM on {}, routing {}, max_wire_smps {}\n", topo_file,
             topo.hcas().size(), topo.switches().size(), topo.cables.size(), topo.nodes[sm.host].name, routing, max_wire);
  fmt::print("wall time: {:.2f} s (load and build {:.2f} s, bring-up {:.2f} s)\n", build_s + run_s, build_s, run_s);
  fmt::print("simulated bring-up: {} (sweep from {} to {})\n", format_duration(r.done), format_duration(r.started),
             format_duration(r.done));
  fmt::print("SMPs: {} sent ({} requests, {} retries, {} errors), {} LFT blocks; {} nodes, {} links found\n",
             r.smps_sent, r.requests, r.retries, r.errors, r.lft_blocks, r.nodes, r.links);
  fmt::print("ports Active: {} of {} cabled\n", active, ports);
  fmt::print("peak memory: {:.0f} MB\n", ru.ru_maxrss / 1024.0);
  fmt::print("simulation actions: {}\n", fabric->events_run());
  return active == ports ? 0 : 1;
}
