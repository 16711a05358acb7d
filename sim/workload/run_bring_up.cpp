// The first phases of a run (scenario_run_phases.h): build the fabric and bring it up.
#include <fmt/format.h>
#include <fmt/ranges.h>

#include <algorithm>
#include <atomic>
#include <memory>
#include <systemc>

#include "sim/core/calendar_process.h"
#include "sim/core/rank_exchange.h"
#include "sim/core/error.h"
#include "sim/fabric/cable_training.h"
#include "sim/fabric/router_manager.h"
#include "sim/report/progress_meter.h"
#include "sim/subnet_manager/sm/subnet_manager.h"
#include "sim/workload/sa_subscribers.h"
#include "sim/workload/scenario_run_phases.h"

namespace ibfsim {

namespace {

// The subnet manager's first sweep must end within this much simulated time (it always does: every
// SMP is answered or given up after its retries).
constexpr Time kBringUpLimit = 1000 * kSec;

// `sm_host`: the HCA or switch the subnet manager runs on, if one does.
// What a run across MPI ranks supports so far: generator flows, verbs flows, traffic classes,
// collectives (SHARP's with its aggregation manager) and a trace replay (each on its hosts' rank),
// routers (each subnet's SM on its own rank); nothing written in time order as the simulation goes.
void check_runs_across_ranks(const Scenario& sc, unsigned parts) {
  std::vector<std::string> unsupported;
  if (parts == 1) unsupported.push_back("an event trace, a capture, a packet log, waveforms or attacks (one partition)");
  if (!unsupported.empty())
    throw InputError(fmt::format("{}: started as one of {} MPI ranks, but a run across ranks does not support {} "
                                 "yet: run it without mpirun (--threads N)",
                                 sc.file, ranks::size(), fmt::join(unsupported, ", ")));
}


FabricOptions fabric_options(const Scenario& sc, const std::filesystem::path& dir, std::string& sm_host) {
  FabricOptions fo;
  fo.carry_payload = sc.outputs.data_check;
  if (sc.outputs.pcap) fo.pcap_path = (dir / "trace.pcap").string();
  fo.pcap_link_packets = sc.outputs.pcap_link_packets;
  fo.pcap_snaplen = sc.outputs.pcap_snaplen;
  fo.link = sc.link;
  fo.phy = sc.phy;
  fo.seed = sc.seed;
  // The end of the run is known once the fabric is up (set_horizon in bring_up_fabric).
  fo.horizon = kTimeNever;
  if (sc.subnet_manager.in_band) {
    const SubnetManagerSettings st = subnet_manager_settings(sc);
    sm_host = sc.topology.nodes[st.host].name;
    fo.subnet_manager = st;
    fo.other_subnet_managers = other_subnet_managers(sc, st);
    fo.sma_timing = sc.subnet_manager.sma;
    for (const auto& [name, t] : sc.subnet_manager.sma_by_node) fo.sma_timing_by_node.emplace_back(*sc.topology.find_node(name), t);
  }
  fo.configure_hca = [&sc](std::size_t node, HcaConfig& c) { sc.hca_model.apply(sc.topology.nodes[node].name, c); };
  fo.congestion_control = sc.congestion_control;
  // Multicast groups: members receive; every source of a flow to the group sends into its tree.
  for (const auto& [name, members] : sc.multicast) {
    MulticastGroup g;
    g.name = name;
    for (const auto& m : members) g.members.push_back(*sc.topology.find_node(m));
    for (const WorkloadSpec& w : sc.flows) {
      if (w.destination != name) continue;
      if (w.sources.empty()) g.senders = sc.topology.hcas();
      else
        for (const auto& src : w.sources) g.senders.push_back(*sc.topology.find_node(src));
    }
    fo.multicast.push_back(g);
  }
  fo.partitions = scenario_partitions(sc);
  return fo;
}

}  // namespace

// Every run goes in windows, so that its results are the same with any number of partitions.
FabricOptions::Partitions scenario_partitions(const Scenario& sc) {
  FabricOptions::Partitions p;
  // Across MPI ranks (rank_exchange.h) each rank runs its block of partitions on its threads.
  p.parts = resolve_threads(sc.simulation.threads) * static_cast<unsigned>(ranks::size());
  if (CalendarProcess::tracing() || sc.outputs.pcap || sc.outputs.packet_log || sc.outputs.vcd || !sc.attacks.empty())
    p.parts = 1;
  if (ranks::several()) check_runs_across_ranks(sc, p.parts);
  for (const VerbsFlowSpec& v : sc.verbs_flows) p.together.push_back({*sc.topology.find_node(v.from), *sc.topology.find_node(v.to)});
  for (const TrafficClassSpec& c : sc.classes) p.together.push_back(c.hosts);
  // A server's HCAs: a collective's transfers between them are events on each other's calendars
  // (the intra-node fabric, nccl_collective.h).
  for (const TopoServer& server : sc.topology.servers) p.together.push_back(server.hosts);
  // Collectives: every rank of every entry (one entry starts the next).
  std::vector<std::size_t> ranks;
  for (const NcclCollectiveSpec& c : sc.collectives) {
    for (const std::string& r : c.ranks) ranks.push_back(*sc.topology.find_node(r));
    // SHARP's aggregation manager hands its jobs their trees: with the ranks.
    if (c.algorithm == NcclAlgorithm::kSharp) ranks.push_back(sharp_manager_place(sc).host);
  }
  std::sort(ranks.begin(), ranks.end());
  ranks.erase(std::unique(ranks.begin(), ranks.end()), ranks.end());
  if (!ranks.empty()) p.together.push_back(ranks);
  // The trace replay: every rank's host (its ranks' state is one object).
  if (sc.trace) {
    std::vector<std::size_t> hosts;
    for (const std::string& h : sc.trace->hosts) hosts.push_back(*sc.topology.find_node(h));
    std::sort(hosts.begin(), hosts.end());
    p.together.push_back(hosts);
  }
  return p;
}

std::uint64_t expected_bring_up_smps(const Topology& topo) {
  const auto cables = topo.port_cables();
  std::uint64_t smps = 0, lids = 0, cabled_ports = 0, switch_links = 0;
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    const TopoNode& node = topo.nodes[n];
    unsigned cabled = 0;
    for (unsigned p = 1; p <= node.num_ports; ++p) cabled += cables[n][p] ? 1 : 0;
    cabled_ports += cabled;
    if (node.type == NodeType::kSwitch) {
      smps += 3 + node.num_ports + 1;  // NodeInfo, NodeDescription, SwitchInfo, PortInfo 0..N
      ++lids;
      for (unsigned p = 1; p <= node.num_ports; ++p)
        if (cables[n][p] && topo.nodes[topo.cables[*cables[n][p]].far_end(n).node].type == NodeType::kSwitch)
          ++switch_links;
    } else {
      smps += 3 * cabled;  // per port it is reached by: NodeInfo, NodeDescription, PortInfo
      lids += cabled;
    }
  }
  smps += switch_links;  // a switch-to-switch link is explored from both ends
  const std::uint64_t switches = topo.switches().size();
  smps += cabled_ports + switches;                 // PortInfo Sets (LIDs, MTU, VLs, HOQLife)
  smps += switches * (1 + (lids + 1 + 63) / 64);   // SwitchInfo and the LFT blocks
  smps += 2 * cabled_ports;                         // Armed, then Active
  return smps;
}

namespace {

// With the subnet manager: run until its first sweep has configured the fabric (LIDs, routes,
// ports Active). Returns when that was.
Time run_subnet_manager_bring_up(Fabric& fabric) {
  // Only the first sweep pauses the run (with routers: once every subnet's SM has finished its
  // first); the callbacks outlive this block.
  const std::vector<SubnetManager*> sms = fabric.subnet_managers();
  if (ranks::several() && sms.size() > 1) {
    // Across MPI ranks each SM sweeps only on the rank that runs its host: at each barrier the ranks
    // add up how many have finished (one allreduce) until all have, and pause there together: the
    // barrier a one-rank run pauses at, after the window the last one finished in.
    auto done = std::make_shared<std::atomic<std::uint64_t>>(0);
    for (SubnetManager* sm : sms)
      sm->set_on_sweep_done([first = true, done](const SweepRecord&) mutable {
        if (first) done->fetch_add(1);
        first = false;
      });
    CalendarProcess::shared().add_barrier_hook([done, counting = true, n = sms.size()]() mutable {
      if (!counting) return;
      std::vector<std::uint64_t> all{done->load()};
      ranks::sum(all);
      if (all[0] < n) return;
      counting = false;  // every rank decides this at the same barrier
      CalendarProcess::pause();
    });
  } else {
    // Counted down by each SM's action, perhaps on the threads of different partitions.
    auto waiting = std::make_shared<std::atomic<std::size_t>>(sms.size());
    for (SubnetManager* sm : sms)
      sm->set_on_sweep_done([first = true, waiting](const SweepRecord&) mutable {
        if (first && waiting->fetch_sub(1) == 1) CalendarProcess::pause();
        first = false;
      });
  }
  {
    // Nodes found (of the topology's) and SMPs asked for (of an estimate): a line with an ETA.
    const SubnetManager::Published* published = &fabric.subnet_manager()->published();
    const std::size_t nodes = fabric.topology().nodes.size();
    const std::uint64_t expected = expected_bring_up_smps(fabric.topology());
    ProgressMeter meter([published, nodes, expected](double wall) {
      BringUpProgress p;
      p.phase = sweep_phase_name(static_cast<SweepPhase>(published->phase.load(std::memory_order_relaxed)));
      p.nodes_found = published->nodes.load(std::memory_order_relaxed);
      p.nodes_expected = nodes;
      p.requests = published->requests.load(std::memory_order_relaxed);
      p.requests_expected = expected;
      p.simulated = CalendarProcess::published_now();
      return bring_up_progress_line(p, wall);
    });
    CalendarProcess::run_for(kBringUpLimit);
  }
  ScheduledModule::rethrow_failure();
  // Ctrl-C during the bring-up: the run below stops at once and the results say partial.
  // Across MPI ranks each SM is known to the rank that runs it (rank_exchange.h).
  bool configured = true;
  for (SubnetManager* sm : sms) configured = ranks::any(sm->configured()) && configured;
  fabric.share_port_lids();
  if (!configured && !CalendarProcess::stop_requested())
    throw SimError("the subnet manager did not finish its first sweep: the simulation ran out of events");
  // The static router manager: the routers' tables from the LIDs the subnets' SMs assigned.
  if (!fabric.topology().routers().empty()) program_routers(fabric);
  return ScheduledModule::now();
}

// Traffic starts once the fabric is up (or when the scenario says); phases count from there.
void set_phase_times(ScenarioRun& run) {
  const Scenario& sc = run.sc;
  run.start = sc.phases.start ? *sc.phases.start : run.fabric_up;
  if (run.in_band && run.start < run.fabric_up)
    throw InputError(fmt::format(
        "{}: phases.start {} is before the subnet manager brought the fabric up at {}: traffic needs the LIDs it "
        "assigns (leave phases.start unset, or run without it: subnet_manager: static)",
        sc.file, format_duration(run.start), format_duration(run.fabric_up)));
  run.measure_begin = run.start + sc.phases.warmup;
  run.measure_end = run.measure_begin + sc.phases.measure;
  // Verbs flows and collectives run until they are done, within phases.limit; load-driven traffic
  // (generator flows, traffic classes) by the phases.
  bool load_driven = !sc.flows.empty(), runs_to_done = !sc.verbs_flows.empty() || !sc.collectives.empty() || sc.trace.has_value();
  for (const TrafficClassSpec& c : sc.classes) (c.collective() ? runs_to_done : load_driven) = true;
  run.load_driven = load_driven;
  run.end_limit = std::max(load_driven || !runs_to_done ? run.measure_end + sc.phases.drain : 0,
                           runs_to_done ? run.start + sc.phases.limit : 0);
}

}  // namespace

void build_fabric(ScenarioRun& run) {
  const Scenario& sc = run.sc;
  run.in_band = sc.subnet_manager.in_band;
  run.options = fabric_options(sc, run.dir, run.sm_host);
  run.fabric = std::make_unique<Fabric>(sc.topology, run.options);
  // Waveforms trace from time 0, bring-up included.
  if (sc.outputs.vcd)
    run.waves = std::make_unique<WaveformTracer>(*run.fabric, (run.dir / "waves").string(), sc.outputs.vcd_ports);
}

void bring_up_fabric(ScenarioRun& run) {
  Fabric& fabric = *run.fabric;
  // Attacks on the bring-up count from time 0 (links train from there, the SM sweeps when up).
  for (const AttackSpec& a : run.sc.attacks)
    if (a.from_time_zero) {
      run.attacks.push_back(make_attack(a, fabric, run.verbs_flows, nullptr));
      run.attacks.back()->setup(a.start);
    }
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  // Without the subnet manager, the links are up when the last one has trained.
  run.fabric_up = run.in_band ? run_subnet_manager_bring_up(fabric)
                              : all_links_up_at(run.sc.topology, run.sc.link.training_delay);
  // Subscribers ask the SA for Notices as soon as it answers (its first sweep is over).
  if (run.in_band) run.sa_subscribers = start_sa_subscribers(run.sc.subnet_manager.subscribers, run.sc.topology, fabric,
                                                       run.sm_host, run.sc.file);
  set_phase_times(run);
  fabric.set_horizon(run.end_limit);
  run.bring_up_cpu = process_cpu_seconds() - cpu_start;
  run.bring_up_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const Fabric::Work work = fabric.work_across_ranks();  // every rank's, across MPI ranks
  run.bring_up_actions = work.events;
  run.bring_up_hops = work.hops;
  run.faults = run.sc.faults;
  for (LinkFault& f : run.faults) f.at += run.start;
  fabric.schedule_faults(run.faults);
}

}  // namespace ibfsim
