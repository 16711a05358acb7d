// The traffic and drain phases of a run (scenario_run_phases.h).
#include <systemc>

#include <fmt/format.h>

#include "sim/core/rank_exchange.h"
#include "sim/core/calendar_process.h"
#include "sim/core/error.h"
#include "sim/fabric/router_manager.h"
#include "sim/report/progress_meter.h"
#include "sim/workload/scenario_run_phases.h"

namespace ibfsim {

namespace {

constexpr std::uint32_t kWorkloadQKey = 0x11111111;

// Every HCA gets one UD QP (QPN 0x100) with the workload's Q_Key; multicast members join with it.
// The CM agent of HCA node `n` (one per HCA, on port 1), made when first asked for: by verbs flows
// with `connect: cm` and by IPoIB connected mode.
CmAgent& cm_agent(ScenarioRun& run, std::size_t n) {
  auto& slot = run.cm_agents[n];
  if (!slot) slot = std::make_unique<CmAgent>(*run.fabric->hca_sma(n), 1, run.sc.cm.agent_config());
  return *slot;
}

void create_generator_qps(ScenarioRun& run) {
  Fabric& fabric = *run.fabric;
  run.hca_nodes = fabric.topology().hcas();
  run.qpn.assign(fabric.topology().nodes.size(), 0);
  for (std::size_t n : run.hca_nodes) run.qpn[n] = fabric.hca(n)->create_ud_qp(kWorkloadQKey);
  for (std::size_t g = 0; g < run.options.multicast.size(); ++g)
    for (std::size_t m : run.options.multicast[g].members)
      fabric.hca(m)->join_multicast(static_cast<Lid>(kMulticastLidBase + g), run.qpn[m]);
}

// The statistics and the observer that ends the run; then the verbs flows: their QPs, memory and
// The server SRQs: one per HCA that `srq: true` flows target, its buffers as large as the
// largest message (UD: with the GRH's room) of those flows, posted before any flow's QP exists.
void create_server_srqs(ScenarioRun& run) {
  const Scenario& sc = run.sc;
  Fabric& fabric = *run.fabric;
  for (const VerbsFlowSpec& v : sc.verbs_flows) {
    if (!v.srq) continue;
    const std::size_t b = *fabric.topology().find_node(v.to);
    auto& slot = run.server_srqs[b];
    if (!slot) slot = std::make_unique<ServerSrq>(*fabric.hca(b), v.to, sc.srq);
    slot->need_slot_bytes(v.message_size + (v.type == verbs::IBV_QPT_UD ? kUdRecvGrhRoom : 0));
  }
  for (auto& [node, srq] : run.server_srqs) srq->setup();
}

// connections are set up now (time 0); each starts at phases.start + its own start.
void create_verbs_flows(ScenarioRun& run) {
  const Scenario& sc = run.sc;
  Fabric& fabric = *run.fabric;
  const Topology& topo = fabric.topology();
  run.models.assign(topo.nodes.size(), HcaConfig{});
  for (std::size_t n : run.hca_nodes) {
    sc.hca_model.apply(topo.nodes[n].name, run.models[n]);
    run.settle = std::max(run.settle, run.models[n].wire_to_completion);
  }
  run.all_stats.emplace(run.measure_begin, run.measure_end);
  run.flow_stats.assign(sc.flows.size(), TrafficStats(run.measure_begin, run.measure_end));
  for (const LinkFault& f : run.faults)
    run.watches.push_back(FaultWatch{f.at, std::vector<Time>(topo.nodes.size(), kTimeNever),
                                     std::vector<Time>(topo.nodes.size(), kTimeNever)});
  run.observer.emplace(*run.all_stats, run.flow_stats, fabric.ledger(), run.measure_end, !sc.flows.empty(),
                       run.verbs_flows, run.settle, fabric.hca(run.hca_nodes.front()), run.watches, run.classes);
  if (CalendarProcess::shared().windowed()) run.observer->look_at_barriers();
  create_server_srqs(run);
  for (std::size_t i = 0; i < sc.verbs_flows.size(); ++i) {
    const VerbsFlowSpec& v = sc.verbs_flows[i];
    const std::size_t a = *topo.find_node(v.from), b = *topo.find_node(v.to);
    run.verbs_flows.push_back(std::make_unique<VerbsFlow>(v, i, *fabric.hca(a), *fabric.hca(b), run.models[a],
                                                          run.models[b], sc.outputs.data_check, run.start + v.start,
                                                          *run.observer));
    // Across routers the two sides address each other by GID, through their routers.
    if (fabric.subnets().of(a) != fabric.subnets().of(b)) {
      for (int side = 0; side < 2; ++side) {
        const auto ah = address_vector(fabric, side == 0 ? a : b, side == 0 ? b : a, v.sl);
        if (!ah)
          throw InputError(fmt::format("{}: verbs flow {}: expected {} and {} joined by routers, got subnets no router "
                                       "path joins",
                                       sc.file, v.name, v.from, v.to));
        run.verbs_flows.back()->set_peer_address(side, *ah);
      }
    }
    if (v.connect == VerbsConnect::kCm) {
      if (fabric.subnets().of(a) != fabric.subnets().of(b))
        throw InputError(fmt::format("{}: verbs flow {}: expected connect: static across routers, got cm (the CM "
                                     "connects within one subnet here)",
                                     sc.file, v.name));
      if (v.from == run.sm_host)
        throw InputError(fmt::format("{}: verbs flow {}: expected connect: cm from an HCA other than the subnet "
                                     "manager's host {} (its PathRecord query would have to leave the node and come "
                                     "back), got from: {}",
                                     sc.file, v.name, run.sm_host, v.from));
      run.verbs_flows.back()->set_cm(cm_agent(run, a), cm_agent(run, b), sc.cm,
                                     sc.subnet_manager.config.sa.packet_life_time);
    }
    if (v.srq) run.verbs_flows.back()->set_srq(*run.server_srqs.at(b));
    run.verbs_flows.back()->setup();
  }
  // Across MPI ranks a flow runs where its hosts are (they share a partition): only that rank's
  // flows can be done here.
  std::vector<bool> here;
  if (ranks::several()) {
    const Partitioning& p = fabric.partitioning();
    for (const VerbsFlowSpec& v : sc.verbs_flows) {
      const std::size_t node = *sc.topology.find_node(v.from);
      here.push_back(ranks::rank_of_partition(p.part.at(node), p.parts, static_cast<unsigned>(ranks::size())) ==
                     static_cast<unsigned>(ranks::rank()));
    }
  }
  run.observer->watch_flows(std::move(here));
}

// Traffic classes: their QPs come after the verbs flows' on every HCA.
void create_classes(ScenarioRun& run) {
  Fabric& fabric = *run.fabric;
  std::vector<Time> completion_delay(fabric.topology().nodes.size(), 0);
  std::map<const Hca*, std::size_t> node_of;
  for (std::size_t n : run.hca_nodes) {
    completion_delay[n] = run.models[n].wire_to_completion;
    node_of[fabric.hca(n)] = n;
  }
  if (!fabric.topology().routers().empty() && !run.sc.classes.empty())
    throw InputError(fmt::format("{}: expected no traffic classes with routers in the fabric, got {} (only verbs_flows "
                                 "cross routers)",
                                 run.sc.file, run.sc.classes.size()));
  for (std::size_t i = 0; i < run.sc.classes.size(); ++i) {
    run.classes.push_back(std::make_unique<TrafficClass>(run.sc.classes[i], i, fabric, run.sc.seed,
                                                         ClassWindow{run.start, run.measure_begin, run.measure_end},
                                                         completion_delay, *run.observer));
    if (run.sc.classes[i].ipoib_connected_mtu != 0)  // IPoIB connected mode: its hosts' CM agents make the connections
      run.classes.back()->set_cm_agents([&run](std::size_t n) -> CmAgent& { return cm_agent(run, n); },
                                        run.sc.subnet_manager.config.sa.packet_life_time);
    run.classes.back()->setup();
  }
  // Across MPI ranks a class runs where its hosts are (they share a partition).
  const Partitioning& p = fabric.partitioning();
  for (const TrafficClassSpec& c : run.sc.classes)
    run.classes_here.push_back(!ranks::several() ||
                               ranks::rank_of_partition(p.part.at(c.hosts.front()), p.parts,
                                                        static_cast<unsigned>(ranks::size())) ==
                                   static_cast<unsigned>(ranks::rank()));
  run.observer->watch_classes(std::move(node_of), ranks::several() ? run.classes_here : std::vector<bool>{});
  if (!run.classes.empty()) run.observer->check_at(run.measure_end);
}

// Collectives (`collectives:`): their QPs come after the classes' on every HCA; the first starts at
// phases.start, each further one when the one before it is done.
void create_collectives(ScenarioRun& run) {
  if (run.sc.collectives.empty()) return;
  if (!run.fabric->topology().routers().empty())
    throw InputError(fmt::format("{}: expected no collectives with routers in the fabric (only verbs_flows cross "
                                 "routers)",
                                 run.sc.file));
  for (const NcclCollectiveSpec& spec : run.sc.collectives)
    if (spec.algorithm == NcclAlgorithm::kSharp && !run.sharp_manager)
      run.sharp_manager = std::make_unique<SharpAggregationManager>(*run.fabric, sharp_manager_place(run.sc));
  for (const NcclCollectiveSpec& spec : run.sc.collectives) {
    NcclCollective* before = run.collectives.empty() ? nullptr : run.collectives.back().get();
    run.collectives.push_back(std::make_unique<NcclCollective>(spec, *run.fabric, *run.observer));
    run.collectives.back()->set_sharp_manager(run.sharp_manager.get());
    run.collectives.back()->setup(run.start, before);
  }
  // Across MPI ranks every collective's hosts share one partition (run_bring_up.cpp): its rank runs them.
  if (ranks::several()) {
    const Partitioning& p = run.fabric->partitioning();
    run.collectives_here = ranks::rank_of_partition(p.part.at(run.collectives.front()->nodes().front()), p.parts,
                                                    static_cast<unsigned>(ranks::size())) ==
                           static_cast<unsigned>(ranks::rank());
  }
  run.observer->watch_collectives(&run.collectives, run.collectives_here);
}

// The trace replay (`trace:`): its QPs after the collectives'; its ranks start at phases.start.
void create_trace_replay(ScenarioRun& run) {
  if (!run.sc.trace) return;
  if (!run.fabric->topology().routers().empty())
    throw InputError(fmt::format("{}: expected no trace replay with routers in the fabric (only verbs_flows cross "
                                 "routers)",
                                 run.sc.file));
  run.trace_replay = std::make_unique<TraceReplay>(*run.sc.trace, *run.fabric, *run.observer);
  run.trace_replay->setup(run.start);
  // Across MPI ranks the replay's hosts share one partition (run_bring_up.cpp): its rank runs it.
  if (ranks::several()) {
    const Partitioning& p = run.fabric->partitioning();
    run.trace_replay_here = ranks::rank_of_partition(p.part.at(*run.fabric->topology().find_node(run.sc.trace->hosts.front())),
                                                     p.parts, static_cast<unsigned>(ranks::size())) ==
                            static_cast<unsigned>(ranks::rank());
  }
  run.observer->watch_trace_replay(run.trace_replay.get(), run.trace_replay_here);
}

// The UD traffic generators of each flow. A host never sends to itself: with a fixed destination,
// that host does not send.
void create_generators(ScenarioRun& run) {
  const Scenario& sc = run.sc;
  Fabric& fabric = *run.fabric;
  const Topology& topo = fabric.topology();
  run.flow_generators.resize(sc.flows.size());
  for (std::size_t f = 0; f < sc.flows.size(); ++f) {
    const WorkloadSpec& w = sc.flows[f];
    std::vector<std::size_t> sources;
    if (w.sources.empty()) sources = run.hca_nodes;
    else
      for (const auto& name : w.sources) sources.push_back(*topo.find_node(name));
    std::optional<Lid> group_lid;
    for (std::size_t g = 0; g < sc.multicast.size(); ++g)
      if (sc.multicast[g].first == w.destination) group_lid = static_cast<Lid>(kMulticastLidBase + g);
    // One destination list for all the flow's sources; each skips itself in it.
    auto dests = std::make_shared<std::vector<UdDestination>>();
    std::vector<std::size_t> index_of(topo.nodes.size(), UdTrafficGenerator::kNoSkip);  // node -> its place in dests
    if (group_lid) dests->push_back(UdDestination{*group_lid, kMulticastQpn});
    else for (std::size_t d : run.hca_nodes) {
      if (w.destination != "random" && topo.nodes[d].name != w.destination) continue;
      index_of[d] = dests->size();
      dests->push_back(UdDestination{fabric.hca(d)->lid(1), run.qpn[d]});
    }
    for (std::size_t src : sources) {
      // The UD generators address by LID: they stay in their subnet (verbs flows cross routers).
      if (!group_lid)
        for (std::size_t d = 0; d < topo.nodes.size(); ++d)
          if (index_of[d] != UdTrafficGenerator::kNoSkip && d != src &&
              fabric.subnets().of(d) != fabric.subnets().of(src))
            throw InputError(fmt::format("{}: flow {}: expected destinations in the subnet of {}, got {} behind a router "
                                         "(only verbs_flows cross routers)",
                                         sc.file, w.name, topo.nodes[src].name, topo.nodes[d].name));
      const std::size_t skip = index_of[src];
      if (dests->size() - (skip == UdTrafficGenerator::kNoSkip ? 0 : 1) == 0) continue;
      Hca& h = *fabric.hca(src);
      // Flow 0 draws from stream `src`; each further flow from its own streams.
      auto g = std::make_unique<UdTrafficGenerator>(h, run.qpn[src], kWorkloadQKey, w, dests, skip,
                                                    RngStream(sc.seed, src + f * 0x100000001ull), run.measure_end,
                                                    run.measure_begin, run.measure_end, static_cast<std::uint16_t>(f));
      g->start(run.start);
      run.flow_generators[f].push_back(g.get());
      run.generators.push_back(std::move(g));
    }
  }
}

// Runs the simulation up to `until` (the events at `until` come in the next run), unless it has
// stopped already: everything was over, or Ctrl-C (SystemC cannot start again after a stop).
void simulate_until(Time until) {
  if (CalendarProcess::stop_requested() || sc_core::sc_get_status() == sc_core::SC_STOPPED) return;
  // run_for counts from the kernel's clock, which may lag the last action after a pause.
  const Time now = sc_core::sc_time_stamp().value();
  if (until > now) CalendarProcess::run_for(until - now);
}

}  // namespace

// The attacks that count from phases.start: once the flows they aim at are set up.
void create_attacks(ScenarioRun& run) {
  for (const AttackSpec& a : run.sc.attacks)
    if (!a.from_time_zero) {
      run.attacks.push_back(make_attack(a, *run.fabric, run.verbs_flows, &*run.observer));
      run.attacks.back()->setup(run.start + a.start);
    }
  run.observer->watch_attacks(&run.attacks);
}

void start_traffic(ScenarioRun& run) {
  create_generator_qps(run);
  create_verbs_flows(run);
  create_attacks(run);
  create_classes(run);
  create_collectives(run);
  create_trace_replay(run);
  // Port utilization and credit stalls over the measurement window, for load-driven traffic.
  Fabric& fabric = *run.fabric;
  if (run.load_driven) {
    run.port_window = std::make_unique<PortWindow>(fabric, run.measure_begin, run.measure_end);
    run.port_window->setup(*fabric.hca(run.hca_nodes.front()));
  }
  run.observer->cnps_possible = run.sc.congestion_control.enabled;
  for (std::size_t n : run.hca_nodes) {
    fabric.hca(n)->set_delivery_observer(&*run.observer);
    if (run.sc.outputs.packet_log) fabric.hca(n)->set_send_observer(&run.packet_log);
  }
  create_generators(run);
  if (run.sc.outputs.time_series.interval > 0)
    run.sampler = time_series_sampler(run, run.panels);
}

void run_traffic(ScenarioRun& run) {
  run.traffic_wall_start = std::chrono::steady_clock::now();
  run.traffic_cpu_start = process_cpu_seconds();
  run.traffic_windows_start = CalendarProcess::shared().windows_run();
  run.traffic_crossings_start = CalendarProcess::shared().cross_partition_events();
  ProgressMeter meter(run.start, run.end_limit, &CalendarProcess::published_now);  // the bring-up had its own
  simulate_until(std::min(run.measure_end, run.end_limit));
}

void drain(ScenarioRun& run) {
  {
    ProgressMeter meter(run.start, run.end_limit, &CalendarProcess::published_now);
    simulate_until(run.end_limit);
  }
  run.partial = CalendarProcess::stop_requested();
  run.simulate_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - run.traffic_wall_start).count();
  run.simulate_cpu = process_cpu_seconds() - run.traffic_cpu_start;
  run.traffic_windows = CalendarProcess::shared().windows_run() - run.traffic_windows_start;
  run.traffic_crossings = CalendarProcess::shared().cross_partition_events() - run.traffic_crossings_start;
  ScheduledModule::rethrow_failure();
  run.end = ScheduledModule::now();
  // Messages still waiting at their sources for room in the send queue count as offered.
  for (const auto& gens : run.flow_generators)
    for (UdTrafficGenerator* g : gens) g->settle(run.end);
  for (std::size_t k = 0; k < run.classes.size(); ++k)
    if (run.classes_here[k]) run.classes[k]->settle(run.end);  // the others' copies never ran
  run.fabric->finish();
  // Across MPI ranks the counts are gathered first, and a packet a rank sent across just before
  // the end (its copy alive on the far rank) is released here, or it would be counted twice.
  run.fabric->finish_ranks();
  run.fabric->check_invariants();
  if (run.waves) run.waves->close();
}

}  // namespace ibfsim
