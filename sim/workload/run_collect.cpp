// The collect phase of a run (scenario_run_phases.h): the statistics registry, and the facts of
// results.json and of the summary, gathered from the scenario and the fabric.
#include <fmt/format.h>

#include <map>

#include "sim/core/stats_registry.h"
#include "sim/fabric/fabric_statistics.h"
#include "sim/phy/fec.h"
#include "sim/report/fact_tables.h"
#include "sim/report/run_results.h"
#include "sim/workload/class_statistics.h"
#include "sim/workload/cm_statistics.h"
#include "sim/workload/sa_subscribers.h"
#include "sim/workload/srq_statistics.h"
#include "sim/workload/nccl_statistics.h"
#include "sim/workload/sharp_allreduce.h"
#include "sim/workload/sharp_statistics.h"
#include "sim/workload/trace_replay_statistics.h"
#include "sim/workload/port_window_statistics.h"
#include "sim/core/stop_signals.h"
#include "sim/workload/scenario_run_phases.h"
#include "sim/workload/study_figures.h"

namespace ibfsim {

SubnetManagerFacts subnet_manager_facts(const ScenarioRun& run, SubnetManager& sm) {
  SubnetManagerFacts f;
  f.host = run.sm_host;
  f.port = sm.port();
  f.routing = routing_engine_name(sm.config().sweep.routing.engine);
  f.lmc = sm.config().sweep.lmc;
  f.smps_sent = sm.smps_sent();
  f.traps_received = sm.traps_received();
  f.configured = sm.configured();
  const bool adaptive = is_adaptive_engine(sm.config().sweep.routing.engine);
  for (const SweepRecord& r : sm.sweeps()) {
    f.sweeps.push_back(SweepFacts{r.trigger, r.started, r.done, r.smps_sent, r.requests, r.retries, r.errors,
                                  r.lft_blocks, r.nodes, r.switches, r.links, std::nullopt});
    if (adaptive) f.sweeps.back().ar_smps = r.ar_smps;
  }
  f.notes = sm.sweep().notes();
  const SmSweepConfig& sweep = sm.config().sweep;
  if (sweep.m_key != 0) {
    SubnetManagerFacts::MKeyFacts mk{sweep.m_key_protect_bits, sweep.m_key_lease_period, sm.bad_m_key_traps(), {}};
    Fabric& fabric = *run.fabric;
    for (std::size_t n = 0; n < fabric.topology().nodes.size(); ++n) {
      const SmaShell* sma = fabric.hca_sma(n) ? static_cast<const SmaShell*>(fabric.hca_sma(n)) : fabric.switch_sma(n);
      if (!sma) continue;
      std::uint64_t count = 0;
      for (const SmaPort& p : sma->state().ports) count += p.info.m_key_violations;
      if (count) mk.violations.emplace_back(fabric.topology().nodes[n].name, count);
    }
    f.m_key = mk;
  }
  return f;
}

namespace {

// Every flow in the order of `workload:`, and the payload the generator flows offered.
void add_flows(const ScenarioRun& run, RunFacts& f) {
  const Scenario& sc = run.sc;
  std::vector<GeneratorFlowFacts> gens;
  for (std::size_t k = 0; k < sc.flows.size(); ++k) {
    const WorkloadSpec& w = sc.flows[k];
    GeneratorFlowFacts g{w.name, w.sl, w.message_size, w.load, w.arrival == Arrival::kPoisson ? "poisson" : "constant",
                         w.destination, run.flow_generators[k].size(), &run.flow_stats[k].latency(),
                         &run.flow_stats[k].network_latency(), {}};
    g.throughput.offered_bytes = run.source_counts[k].posted * w.message_size;
    g.throughput.accepted_bytes = run.flow_stats[k].window_payload_bytes();
    g.throughput.accepted_packets = run.flow_stats[k].window_packets();
    g.throughput.window = sc.phases.measure;
    f.throughput.offered_bytes += g.throughput.offered_bytes;
    gens.push_back(std::move(g));
  }
  for (const auto& [kind, k] : sc.workload_order) {
    if (kind == Scenario::EntryKind::kVerbs)
      f.flows.emplace_back(run.verbs_results.empty() ? run.verbs_flows[k]->results() : run.verbs_results[k]);
    else if (kind == Scenario::EntryKind::kClass) f.flows.emplace_back(run.classes[k]->results());
    else f.flows.emplace_back(gens[k]);
  }
  f.throughput.accepted_bytes = run.all_stats->window_payload_bytes();
  f.throughput.accepted_packets = run.all_stats->window_packets();
  f.throughput.window = sc.phases.measure;
}

// The HCA model each HCA ran with (scenario `hca_model:` over HcaConfig's defaults), with verbs flows.
std::vector<HcaModelFacts> hca_models(const ScenarioRun& run) {
  std::vector<HcaModelFacts> out;
  if (run.verbs_flows.empty()) return out;
  for (std::size_t n : run.hca_nodes) out.push_back(hca_model_facts(run.fabric->topology().nodes[n].name, run.models[n]));
  return out;
}

std::vector<LinkFacts> link_facts(Fabric& fabric) {
  const Topology& topo = fabric.topology();
  std::vector<LinkFacts> out;
  for (std::size_t k = 0; k < topo.cables.size(); ++k) {
    const TopoCable& c = topo.cables[k];
    const TrainingResult& t = fabric.training(k);
    const LinkPort& a = fabric.port(c.node_a, c.port_a);
    const LinkPort& b = fabric.port(c.node_b, c.port_b);
    LinkFacts l;
    l.a = topo.nodes[c.node_a].name + "/" + std::to_string(c.port_a);
    l.b = topo.nodes[c.node_b].name + "/" + std::to_string(c.port_b);
    l.rate = c.rate.name();
    l.trained = t.up ? LinkRate{t.speed, t.lanes}.name() : "down";
    l.lane_reversed = t.lane_reversed;
    l.training = t.duration;
    l.phy_mode = a.bit_exact() ? "bit_exact" : "timing";
    if (a.fec().on()) l.fec = fec_code_name(a.fec().code);
    l.up = fabric.link_up_times(k);
    // Both ends Active: after the first training, then after each retrain.
    const std::vector<Time>& at = fabric.port_active_times(c.node_a, c.port_a);
    const std::vector<Time>& bt = fabric.port_active_times(c.node_b, c.port_b);
    for (std::size_t i = 0; i < at.size() && i < bt.size(); ++i) l.active.push_back(std::max(at[i], bt[i]));
    l.down = fabric.link_down_times(k);
    if (a.bit_exact()) {
      const LinkPort::PhyTotals pa = a.phy_totals(), pb = b.phy_totals();
      l.phy = LinkFacts::PhyCounts{pa.bits_flipped + pb.bits_flipped, pa.rx.symbol_errors() + pb.rx.symbol_errors(),
                                   pa.rx.bad_frames + pb.rx.bad_frames, pa.skips + pb.skips};
    }
    out.push_back(std::move(l));
  }
  return out;
}

std::vector<FaultFacts> fault_facts(const ScenarioRun& run, const SubnetManagerFacts& sm_facts) {
  const Topology& topo = run.fabric->topology();
  SubnetManager* sm = run.fabric->subnet_manager();
  std::vector<FaultFacts> out;
  for (std::size_t i = 0; i < run.faults.size(); ++i) {
    const LinkFault& lf = run.faults[i];
    FaultFacts f;
    f.link = topo.nodes[lf.node].name + "/" + std::to_string(lf.port);
    f.up = lf.up;
    f.at = lf.at;
    f.subnet_manager = sm != nullptr;
    // The subnet manager's sweeps as its rank saw them (take_in_rank_tallies).
    if (sm)
      for (const SweepFacts& rec : sm_facts.sweeps)
        if (rec.started >= lf.at && rec.done) {
          f.resweep_done = rec.done;
          break;
        }
    if (!run.ar_moved.empty()) {
      if (run.ar_moved[i]) f.ar_moved = run.ar_moved[i];
    } else {
      f.ar_moved = fault_ar_moved(run, i);
    }
    for (std::size_t n : run.hca_nodes) {
      const Time before = run.watches[i].last_before[n], after = run.watches[i].first_after[n];
      if (before == kTimeNever && after == kTimeNever) continue;
      f.destinations.push_back(FaultFacts::Destination{topo.nodes[n].name, before, after});
    }
    out.push_back(std::move(f));
  }
  return out;
}

CcSettingsFacts cc_settings(const CongestionControlSettings& s) {
  CcSettingsFacts f{s.threshold, s.packet_size, s.marking_rate, s.cs_threshold, s.per_sl, s.ca.ccti_timer * 1.024,
                    s.ca.ccti_increase, s.ca.ccti_min, s.ca.trigger_threshold, s.cct.ccti_limit, {}};
  for (std::size_t i = 0; i <= s.cct.ccti_limit && i < s.cct.entries.size(); ++i)
    f.cct.push_back(fmt::format("{}:{}", s.cct.entries[i].shift, s.cct.entries[i].multiplier));
  return f;
}

RunFacts run_facts(ScenarioRun& run) {
  const Scenario& sc = run.sc;
  Fabric& fabric = *run.fabric;
  const Topology& topo = fabric.topology();
  const PacketLedger& L = fabric.ledger();
  RunFacts f;
  f.version = IBFSIM_VERSION_STRING;
  f.scenario_file = sc.file;
  f.topology_file = sc.topology_file;
  f.partial = run.partial;
  if (run.partial) f.stopped_by = signal_name(stop_signal());
  f.warnings = sc.warnings;
  f.hcas = run.hca_nodes.size();
  f.switches = topo.switches().size();
  f.cables = topo.cables.size();
  f.cable_rates = cable_rates(topo);
  f.seed = sc.seed;
  f.start = run.start, f.warmup = sc.phases.warmup, f.measure = sc.phases.measure, f.drain_limit = sc.phases.drain;
  f.end = run.end, f.fabric_up = run.fabric_up;
  f.start_given = sc.phases.start.has_value();
  f.drained = L.created_count() == L.delivered_count() + L.dropped_total() + L.replicated_count();
  if (SubnetManager* sm = fabric.subnet_manager())
    f.subnet_manager = run.sm_facts ? *run.sm_facts : subnet_manager_facts(run, *sm);
  f.latency = &run.all_stats->latency();
  f.network_latency = &run.all_stats->network_latency();
  add_flows(run, f);
  f.hca_models = hca_models(run);
  f.study = study_figures(sc, run.flow_generators, run.source_counts, run.flow_stats, run.classes, *run.observer, fabric, run.end,
                          run.partial ? kTimeNever : run.end_limit);
  f.links = link_facts(fabric);
  f.faults = fault_facts(run, f.subnet_manager ? *f.subnet_manager : SubnetManagerFacts{});
  if (sc.congestion_control.enabled) f.congestion_control = cc_settings(sc.congestion_control);
  if (sc.subnet_manager.in_band && is_adaptive_engine(sc.subnet_manager.config.sweep.routing.engine)) {
    const ArSweepSettings& a = sc.subnet_manager.config.sweep.adaptive_routing;
    ArSettingsFacts ar;
    ar.routing = routing_engine_name(sc.subnet_manager.config.sweep.routing.engine);
    for (unsigned sl = 0; sl < 16; ++sl)
      if (a.sl_mask >> sl & 1) ar.sls.push_back(sl);
    ar.flowlet_gap = a.flowlet_gap;
    ar.credit_levels = a.credit_levels;
    ar.flowlet_margin = a.flowlet_margin;
    ar.fast_recovery = a.fast_recovery;
    ar.congestion_threshold = a.congestion_threshold;
    ar.congestion_hold = a.congestion_hold;
    f.adaptive_routing = ar;
  }
  for (const auto& c : run.classes) f.class_summaries.push_back(c->summary());
  if (!run.verbs_summaries.empty()) f.verbs_summaries = run.verbs_summaries;
  else
    for (const auto& v : run.verbs_flows) f.verbs_summaries.push_back(v->summary());
  for (const auto& c : run.collectives)
    f.collective_tables.push_back(
        nccl_tests_table(c->spec(), c->rows(), c->done(), c->sharp_note()));
  if (run.trace_replay) f.collective_tables.push_back(run.trace_replay->summary());
  for (const auto& a : run.attacks) {
    f.attacks.push_back(a->results());
    f.attack_summaries.push_back(a->summary());
    for (AttackTargetFacts& t : a->targets()) f.attack_targets.push_back(std::move(t));
  }
  f.results_path = (run.dir / "results.json").string();
  f.report_path = (run.dir / "report.html").string();
  return f;
}

// The run's own figures: the simulation work of the bring-up (results.json "simulation").
struct BringUpWork {
  std::uint64_t actions = 0, packet_hops = 0;
};

}  // namespace

HcaModelFacts hca_model_facts(const std::string& hca, const HcaConfig& c) {
  return HcaModelFacts{hca, c.doorbell_to_wire, c.wire_to_completion, c.host.pcie_gen, c.host.pcie_width,
                       c.host.max_payload, c.host.unlimited,
                       c.host.unlimited ? 0.0 : host_interface_bytes_per_second(c.host) / 1e9, c.p_keys,
                       c.memory_keys == MemoryKeyMode::kSequential ? "" : memory_key_mode_name(c.memory_keys),
                       c.rc_out_of_order};
}

std::vector<std::pair<std::string, std::size_t>> cable_rates(const Topology& topo) {
  std::map<std::pair<int, unsigned>, std::pair<std::string, std::size_t>> rates;  // by speed, then width
  for (const TopoCable& c : topo.cables) {
    auto& r = rates[{static_cast<int>(c.rate.speed), c.rate.lanes}];
    r.first = c.rate.name();
    ++r.second;
  }
  std::vector<std::pair<std::string, std::size_t>> out;
  for (const auto& [key, r] : rates) out.push_back(r);
  return out;
}

std::optional<Time> fault_ar_moved(const ScenarioRun& run, std::size_t i) {
  const LinkFault& lf = run.faults.at(i);
  const Time next = i + 1 < run.faults.size() ? run.faults[i + 1].at : kTimeNever;
  std::optional<Time> moved;
  for (std::size_t n = 0; n < run.fabric->topology().nodes.size(); ++n)
    if (const Switch* s = run.fabric->switch_at(n))
      for (const Time t : s->fault_notifier().stats().applied)
        if (t >= lf.at && t < next && (!moved || t > *moved)) moved = t;
  return moved;
}

void collect(ScenarioRun& run, CollectedResults& c) {
  take_in_rank_tallies(run);
  c.facts = run_facts(run);
  StatsRegistry& registry = c.registry;
  const CongestionControlSettings& cc = run.sc.congestion_control;
  const bool ar = run.sc.subnet_manager.in_band && is_adaptive_engine(run.sc.subnet_manager.config.sweep.routing.engine);
  const FabricStatRows rows = register_fabric_statistics(registry, *run.fabric, {run.end, cc.enabled, cc.per_sl, ar});
  registry.add_kind<BringUpWork>("bring_up", {})
      .counter("simulation.bring_up_actions", "actions", kResultsTop, [](const BringUpWork& w) { return w.actions; })
      .counter("simulation.bring_up_packet_hops", "packets", kResultsTop, [](const BringUpWork& w) { return w.packet_hops; })
      .add(BringUpWork{run.bring_up_actions, run.bring_up_hops}, kNoStatParent);
  if (run.port_window) register_port_window_statistics(registry, *run.port_window, *run.fabric, rows);
  register_class_statistics(registry, run.classes, c.facts.study);
  register_nccl_statistics(registry, run.collectives);
  register_trace_replay_statistics(registry, run.trace_replay.get());
  register_sharp_statistics(registry, *run.fabric, run.sharp_manager.get());
  register_cm_statistics(registry, *run.fabric, run.cm_agents, run.verbs_flows);
  register_srq_statistics(registry, *run.fabric, run.server_srqs);
  register_sa_subscriber_statistics(registry, *run.fabric, run.sa_subscribers);
  register_fact_tables(registry, c.facts);
  // results.json's own figures: a few rows. The tables are read from the registry as they are
  // written (write_results), never all at once.
  c.statistics = registry.snapshot(kResultsTop | kResultsCongestionControl | kResultsAdaptiveRouting);
  c.results = run_results_json(c.facts, c.statistics);
}

}  // namespace ibfsim
