#include "sim/workload/bring_up.h"

#include <fmt/format.h>

#include <systemc>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/core/calendar_process.h"
#include "sim/fabric/fabric.h"
#include "sim/workload/simulation_spec.h"

namespace ibfsim {

BringUpResult bring_up_scenario(const Scenario& sc) {
  if (!sc.subnet_manager.in_band)
    throw InputError(fmt::format("{}: expected a subnet manager to bring the fabric up, got subnet_manager: static", sc.file));
  init_time_resolution();
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  FabricOptions fo;
  fo.link = sc.link;
  fo.phy = sc.phy;
  fo.seed = sc.seed;
  fo.subnet_manager = subnet_manager_settings(sc);
  fo.sma_timing = sc.subnet_manager.sma;
  for (const auto& [name, t] : sc.subnet_manager.sma_by_node) fo.sma_timing_by_node.emplace_back(*sc.topology.find_node(name), t);
  // In windows as `ibfsim run` goes; no workload here, so only the number of partitions matters
  // (the tables are the same with any).
  FabricOptions::Partitions parts;  // (not optional::emplace(): clang rejects it for this nested struct)
  parts.parts = resolve_threads(sc.simulation.threads);
  fo.partitions = parts;
  // Lives until the process ends, as SystemC modules must.
  Fabric& fabric = *new Fabric(sc.topology, fo);
  SubnetManager& sm = *fabric.subnet_manager();
  sm.set_on_sweep_done([](const SweepRecord&) { CalendarProcess::pause(); });
  CalendarProcess::run_for(1000 * kSec);  // the sweep ends long before
  ScheduledModule::rethrow_failure();
  if (!sm.configured()) throw SimError("the subnet manager did not finish its first sweep: the simulation ran out of events");

  BringUpResult r;
  r.graph = sm.sweep().graph();
  r.tables = sm.sweep().tables();
  r.done = sm.sweeps().front().done;
  r.smps = sm.sweeps().front().smps_sent;
  r.notes = sm.sweep().notes();
  // The LFTs as the switches hold them, up to each one's LinearFDBTop.
  std::unordered_map<Guid, std::size_t> node_of_guid;
  for (std::size_t n = 0; n < sc.topology.nodes.size(); ++n) node_of_guid.emplace(sc.topology.nodes[n].guid, n);
  for (std::size_t g : r.graph.switches()) {
    Switch& sw = *fabric.switch_at(node_of_guid.at(r.graph.nodes[g].node_guid));
    std::vector<PortNum>& lft = r.tables.lft[g];
    lft.assign(static_cast<std::size_t>(sw.lft().top()) + 1, kNoRoute);
    for (std::size_t lid = 0; lid < lft.size(); ++lid) lft[lid] = sw.lft().lookup(static_cast<Lid>(lid));
    // Its adaptive routing groups likewise, as its SMA was told them.
    if (r.tables.ar) {
      const ArTable& held = sw.routing_unit().adaptive();
      ArSwitchTables& ar = r.tables.ar->by_node[g];
      ar.groups.clear();
      for (std::uint16_t k = 1; k < held.group_slots() && !held.group(k).empty(); ++k) ar.groups.push_back(held.group(k));
      ar.group_of_lid.assign(lft.size(), 0);
      for (std::size_t lid = 0; lid < lft.size(); ++lid) ar.group_of_lid[lid] = held.group_of(static_cast<Lid>(lid));
    }
  }
  return r;
}

}  // namespace ibfsim
