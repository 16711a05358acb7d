#include "sim/workload/roce_run.h"

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <map>

#include <fmt/format.h>

#include "sim/core/calendar_process.h"
#include "sim/core/error.h"
#include "sim/core/rank_exchange.h"
#include "sim/core/stop_signals.h"
#include "sim/fabric/ethernet_pcap_capture.h"
#include "sim/fabric/ethernet_port_statistics.h"
#include "sim/fabric/pfc_deadlock_detector.h"
#include "sim/fabric/roce_fabric_statistics.h"
#include "sim/report/fact_tables.h"
#include "sim/report/result_tables.h"
#include "sim/report/results_json.h"
#include "sim/report/run_results.h"
#include "sim/report/run_summary.h"
#include "sim/report/stat_tables.h"
#include "sim/report/table_file.h"
#include "sim/transport/roce/dcqcn_statistics.h"
#include "sim/workload/roce_run_ranks.h"
#include "sim/workload/roce_workloads.h"
#include "sim/workload/run_observer.h"
#include "sim/workload/scenario_run_phases.h"

namespace ibfsim {

RoceHcaFabricOptions roce_fabric_options(const Scenario& sc, const EthernetFabricPlan& plan,
                                         std::vector<HcaConfig>& models) {
  const RoceSpec& r = sc.roce;
  RoceHcaFabricOptions o;
  o.rate = r.rate;
  const Time edge = static_cast<Time>(r.rate.info().byte_period_fs);
  o.propagation_edges = static_cast<std::uint64_t>((r.cable_delay + edge / 2) / edge);  // nearest edge
  o.fec_decoder = r.fec_decoder;
  o.cut_through = r.cut_through;
  o.switch_latency = r.switch_latency;
  o.switch_buffer_bytes = r.switch_buffer_bytes;
  o.pfc = r.pfc;
  o.ecn = r.ecn;
  o.seed = sc.seed;
  o.hca.carry_payload = sc.outputs.data_check;
  if (r.dcqcn_enabled) o.hca.dcqcn = r.dcqcn;
  models.assign(plan.nodes.size(), HcaConfig{});
  o.configure_hca = [&sc, &plan, &models](std::size_t node, HcaConfig& c) {
    sc.hca_model.apply(plan.nodes[node].name, c);
    // The topology's node index, as on InfiniBand: packets carry it (Packet::src_node), and the
    // workloads know their hosts by it (the plan numbers its switches first).
    c.node_index = static_cast<std::uint32_t>(*sc.topology.find_node(plan.nodes[node].name));
    c.roce_ports[0].dscp = sc.roce.dscp;
    c.roce_ports[0].pcp = sc.roce.pcp;
    models[node] = c;
  };
  return o;
}

std::vector<std::pair<std::string, std::size_t>> roce_cable_rates(const Topology& topo, const EthernetRate& fabric_rate) {
  std::map<std::pair<EthernetSpeed, bool>, std::size_t> count;
  for (std::size_t k = 0; k < topo.cables.size(); ++k) {
    const EthernetRate r = ethernet_cable_own(topo, k, fabric_rate).rate.value_or(fabric_rate);
    ++count[{r.speed, r.fec}];
  }
  std::vector<std::pair<std::string, std::size_t>> out;
  for (const auto& [key, n] : count) out.emplace_back(EthernetRate{key.first, key.second}.name(), n);
  return out;
}

namespace {

// What the run built and measured, destroyed in reverse order: the flows before the fabric.
struct RoceRun {
  explicit RoceRun(const Scenario& s) : sc(s), plan(ethernet_plan_from_topology(s.topology, s.seed, s.roce.rate)) {}
  const Scenario& sc;
  EthernetFabricPlan plan;
  PacketPool pool;
  PacketLedger ledger;
  std::vector<HcaConfig> models;  // [plan node]
  std::unique_ptr<RoceHcaFabric> fabric;
  std::unique_ptr<RoceWorkloads> workloads;  // generator flows, classes, collectives, trace replay
  Time start = 0, measure_begin = 0, measure_end = 0, end_limit = 0, end = 0, settle = 0;
  std::optional<TrafficStats> all_stats;
  std::vector<TrafficStats> flow_stats;  // per generator flow
  std::vector<FaultWatch> watches;
  std::vector<std::unique_ptr<TrafficClass>> classes;
  std::vector<std::unique_ptr<VerbsFlow>> verbs_flows;
  std::optional<RunObserver> observer;
  std::unique_ptr<EthernetPcapCapture> capture;  // outputs.pcap: trace.pcap, trace_links.csv
  std::unique_ptr<PfcDeadlockDetector> deadlock_detector;  // with lossless priorities
  std::optional<PfcDeadlock> deadlock;                     // what stopped the run, if it was one
};

// The verbs flows, each between two HCAs named by the topology, as create_verbs_flows does on
// InfiniBand: set up now (time 0), started at phases.start + the flow's start; then the other
// workloads (roce_workloads.h).
void start_verbs_flows(RoceRun& run) {
  const Scenario& sc = run.sc;
  // As on InfiniBand, every HCA's first QP is the UD generator's (kGeneratorQpn): the verbs flows'
  // QPs get the same numbers, and the observer tells their packets from the generator's.
  run.workloads = std::make_unique<RoceWorkloads>(sc, *run.fabric, run.pool);
  run.workloads->create_generator_qps();
  for (const std::size_t n : run.plan.hosts()) run.settle = std::max(run.settle, run.models[n].wire_to_completion);
  run.all_stats.emplace(run.measure_begin, run.measure_end);
  run.flow_stats.assign(sc.flows.size(), TrafficStats(run.measure_begin, run.measure_end));
  Hca& clock = *run.fabric->hca(run.plan.hosts().front());
  run.observer.emplace(*run.all_stats, run.flow_stats, run.ledger, run.measure_end, !sc.flows.empty(), run.verbs_flows,
                       run.settle, &clock, run.watches, run.classes);
  run.observer->cnps_possible = sc.roce.dcqcn_enabled;
  for (std::size_t i = 0; i < sc.verbs_flows.size(); ++i) {
    const VerbsFlowSpec& v = sc.verbs_flows[i];
    const std::size_t a = run.plan.find(v.from), b = run.plan.find(v.to);
    run.verbs_flows.push_back(std::make_unique<VerbsFlow>(v, i, *run.fabric->hca(a), *run.fabric->hca(b),
                                                          run.models[a], run.models[b], sc.outputs.data_check,
                                                          run.start + v.start, *run.observer));
    run.verbs_flows.back()->setup();
  }
  // Across MPI ranks a flow runs where its hosts are (they share a partition).
  run.observer->watch_flows(ranks::several() ? roce_verbs_flows_here(sc, *run.fabric) : std::vector<bool>{});
  // In windows whether the run is over is asked at barriers, of the whole fabric at once.
  if (CalendarProcess::shared().windowed()) run.observer->look_at_barriers();
  run.workloads->start(*run.observer, run.classes, run.models, {run.start, run.measure_begin, run.measure_end});
  for (const std::size_t n : run.plan.hosts()) run.fabric->hca(n)->set_delivery_observer(&*run.observer);
}

// `verbs`: each verbs flow's results and summary, from its rank (roce_run_ranks.h).
RunFacts roce_run_facts(const RoceRun& run, const std::string& dir, bool partial, const VerbsFlowResults& verbs,
                        const std::vector<FlowSourceCounts>& sources) {
  const Scenario& sc = run.sc;
  RunFacts f;
  f.version = IBFSIM_VERSION_STRING;
  f.scenario_file = sc.file;
  f.topology_file = sc.topology_file;
  f.partial = partial;
  if (partial) f.stopped_by = run.deadlock ? "pfc_deadlock" : signal_name(stop_signal());
  f.warnings = sc.warnings;
  f.hcas = run.plan.hosts().size();
  f.switches = run.plan.switches().size();
  f.cables = run.plan.cables.size();
  f.cable_rates = roce_cable_rates(sc.topology, sc.roce.rate);
  f.seed = sc.seed;
  f.start = run.start, f.warmup = sc.phases.warmup, f.measure = sc.phases.measure, f.drain_limit = sc.phases.drain;
  f.end = run.end, f.fabric_up = 0;
  f.start_given = sc.phases.start.has_value();
  const PacketLedger& L = run.ledger;
  f.drained = L.created_count() == L.delivered_count() + L.dropped_total() + L.replicated_count();
  f.latency = &run.all_stats->latency();
  f.network_latency = &run.all_stats->network_latency();
  f.verbs_summaries = verbs.summaries;
  run.workloads->add_facts(f, run.verbs_flows, run.classes, *run.observer, run.flow_stats, *run.all_stats, sources,
                           run.end, partial ? kTimeNever : run.end_limit);
  for (std::size_t i = 0; i < sc.workload_order.size(); ++i)
    if (sc.workload_order[i].first == Scenario::EntryKind::kVerbs) f.flows.at(i) = verbs.results.at(sc.workload_order[i].second);
  if (!run.verbs_flows.empty())
    for (const std::size_t n : run.plan.hosts()) f.hca_models.push_back(hca_model_facts(run.plan.nodes[n].name, run.models[n]));
  f.results_path = (std::filesystem::path(dir) / "results.json").string();
  return f;
}

nlohmann::json pfc_settings_json(const RoceSpec& r, RoceHcaFabric& fabric) {
  const EthernetPfcConfig& c = r.pfc;
  nlohmann::json j;
  j["enabled"] = c.lossless != 0;
  if (c.lossless == 0) return j;
  j["priorities"] = nlohmann::json::array();
  for (unsigned p = 0; p < kPfcClasses; ++p)
    if (c.on(p)) j["priorities"].push_back(p);
  j["xoff_bytes"] = c.xoff_bytes;
  j["xon_bytes"] = c.xon_bytes;
  j["headroom"] = c.headroom_bytes == 0 ? nlohmann::json("auto") : nlohmann::json(c.headroom_bytes);
  j["max_frame_bytes"] = c.mtu_frame_bytes;
  j["pause_quanta"] = c.pause_quanta;
  j["response_time_ns"] = to_ns(c.response_time);
  j["storm_threshold_us"] = to_ns(c.storm_threshold) / 1000;
  // The headroom in force at every switch port (computed from its cable with `auto`).
  nlohmann::json ports = nlohmann::json::array();
  const EthernetFabricPlan& plan = fabric.plan();
  for (const std::size_t n : plan.switches()) {
    EthernetSwitch& sw = *fabric.switch_at(n);
    for (PortNum p = 1; p <= sw.num_ports(); ++p)
      ports.push_back({{"port", fmt::format("{}/{}", plan.nodes[n].name, p)}, {"headroom_bytes", sw.pfc_headroom_bytes(p)}});
  }
  j["ports"] = std::move(ports);
  return j;
}

nlohmann::json dcqcn_settings_json(const RoceSpec& r) {
  const DcqcnConfig& c = r.dcqcn;
  nlohmann::json j;
  j["enabled"] = r.dcqcn_enabled;
  if (!r.dcqcn_enabled) return j;
  j["g"] = c.g;
  j["initial_alpha"] = c.initial_alpha;
  j["alpha_period_us"] = to_ns(c.alpha_period) / 1000;
  j["increase_period_us"] = to_ns(c.increase_period) / 1000;
  j["increase_bytes"] = c.increase_bytes;
  j["fast_recovery_steps"] = c.fast_recovery_steps;
  j["additive_increase_mbps"] = static_cast<double>(c.additive_increase_bps) / 1e6;
  j["hyper_increase_mbps"] = static_cast<double>(c.hyper_increase_bps) / 1e6;
  j["min_rate_mbps"] = static_cast<double>(c.min_rate_bps) / 1e6;
  j["rate_on_first_cnp_mbps"] = static_cast<double>(c.rate_on_first_cnp_bps) / 1e6;
  j["clamp_target_rate"] = c.clamp_target_rate;
  j["cnp_interval_us"] = to_ns(c.min_cnp_interval) / 1000;
  j["cnp_dscp"] = c.cnp_dscp;
  return j;
}

// Splits the fabric as an InfiniBand run's (scenario_partitions: as many partitions as threads,
// the nodes whose workloads reach into each other together, one partition for a capture or an
// event trace), by the plan's node numbers.
void partition_roce_fabric(RoceRun& run) {
  const FabricOptions::Partitions p = scenario_partitions(run.sc);
  std::vector<std::vector<std::size_t>> together;
  for (const auto& group : p.together) {
    together.emplace_back();
    for (const std::size_t n : group) together.back().push_back(run.plan.find(run.sc.topology.nodes.at(n).name));
  }
  run.fabric->partition(p.parts, std::move(together), p.method);
}

// What results.json says of the Ethernet fabric a RoCE run built.
nlohmann::json roce_settings_json(const RoceSpec& r, RoceHcaFabric& fabric) {
  nlohmann::json j;
  j["rate"] = r.rate.name();
  j["cable_delay_ns"] = to_ns(r.cable_delay);
  j["fec_decoder_latency_ns"] = to_ns(r.fec_decoder);
  j["cut_through"] = r.cut_through;
  j["switch_latency_ns"] = to_ns(r.switch_latency);
  j["switch_buffer_bytes"] = r.switch_buffer_bytes;
  j["dscp"] = r.dscp;
  j["pcp"] = r.pcp ? nlohmann::json(*r.pcp) : nlohmann::json(nullptr);
  j["pfc"] = pfc_settings_json(r, fabric);
  j["ecn"] = {{"enabled", r.ecn.enabled}};
  if (r.ecn.enabled) {
    j["ecn"]["kmin_bytes"] = r.ecn.kmin_bytes;
    j["ecn"]["kmax_bytes"] = r.ecn.kmax_bytes;
    j["ecn"]["pmax"] = r.ecn.pmax;
  }
  j["dcqcn"] = dcqcn_settings_json(r);
  j["deadlock_window_ns"] = to_ns(r.deadlock_window);
  j["addressing"] = "static: IPv4 10.0.<switch>.<port>, routes by shortest paths with ECMP, no subnet manager";
  return j;
}

// The summary's line of what PFC, ECN and DCQCN did (results.json "ethernet" and "dcqcn").
std::string roce_summary_line(const nlohmann::json& results) {
  // "1 frame", "2 frames".
  auto count = [](const nlohmann::json& j, const char* key, const char* one, const char* many) {
    const auto n = j.at(key).get<std::uint64_t>();
    return fmt::format("{} {}", n, n == 1 ? one : many);
  };
  const nlohmann::json& e = results.at("ethernet");
  std::string line = fmt::format("roce: {} sent, {} received; {} ECN-marked",
                                 count(e, "pause_frames_sent", "PFC pause frame", "PFC pause frames"),
                                 e.at("pause_frames_received").get<std::uint64_t>(),
                                 count(e, "ecn_marked", "frame", "frames"));
  if (results.contains("dcqcn")) {
    const nlohmann::json& d = results.at("dcqcn");
    line += fmt::format("; DCQCN: {} sent, {} received, {}", count(d, "cnps_sent", "CNP", "CNPs"),
                        d.at("cnps_received").get<std::uint64_t>(), count(d, "rate_cuts", "rate cut", "rate cuts"));
  }
  return line + "\n";
}

}  // namespace

RunResult run_roce_scenario(const Scenario& sc, const std::string& out_dir) {
  if (ranks::several()) check_roce_runs_across_ranks(sc);
  RoceRun run(sc);
  const RoceHcaFabricOptions options = roce_fabric_options(sc, run.plan, run.models);
  run.fabric = std::make_unique<RoceHcaFabric>(run.plan, options, run.pool, run.ledger);
  if (sc.outputs.pcap) {
    run.capture = std::make_unique<EthernetPcapCapture>((std::filesystem::path(out_dir) / "trace.pcap").string(),
                                                        sc.outputs.pcap_snaplen);
    for (const auto& [id, name] : run.fabric->link_names()) run.capture->name_link(id, name);
    run.fabric->set_capture(run.capture.get());
  }
  partition_roce_fabric(run);
  // The fabric is up at time 0: traffic starts then, or when the scenario says.
  run.start = sc.phases.start.value_or(0);
  run.measure_begin = run.start + sc.phases.warmup;
  run.measure_end = run.measure_begin + sc.phases.measure;
  // As on InfiniBand (run_bring_up.cpp): load-driven traffic by the phases, the rest until done.
  bool load_driven = !sc.flows.empty(), runs_to_done = !sc.verbs_flows.empty() || !sc.collectives.empty() || sc.trace.has_value();
  for (const TrafficClassSpec& c : sc.classes) (c.collective() ? runs_to_done : load_driven) = true;
  run.end_limit = std::max(load_driven || !runs_to_done ? run.measure_end + sc.phases.drain : 0,
                           runs_to_done ? run.start + sc.phases.limit : 0);
  set_results_pending();
  start_verbs_flows(run);
  if (options.pfc.lossless)
    // At least a window of the calendar: a pause's check (a global event) is scheduled from inside
    // one, and must fall after its end.
    run.deadlock_detector = std::make_unique<PfcDeadlockDetector>(
        *run.fabric, options.pfc.lossless, std::max(sc.roce.deadlock_window, CalendarProcess::shared().window()));
  const auto wall_start = std::chrono::steady_clock::now();
  const double cpu_start = process_cpu_seconds();
  if (!CalendarProcess::stop_requested()) CalendarProcess::run_for(run.end_limit);
  try {
    ScheduledModule::rethrow_failure();
  } catch (const PfcDeadlockError& e) {
    run.deadlock = e.deadlock();  // the results so far are written, marked with it
  }
  // The simulation is over: the threads that ran its partitions go (calendar_process.h).
  CalendarProcess::shared().end_partition_threads();
  // Across MPI ranks: the frames handed to other ranks go, the ledger's counts are every rank's.
  run.fabric->finish_ranks();
  const bool partial = CalendarProcess::stop_requested() || run.deadlock;
  run.end = ScheduledModule::now();
  run.workloads->settle(run.end, run.classes);
  if (run.capture) run.capture->close();
  std::vector<FlowSourceCounts> sources = run.workloads->source_counts();
  take_in_roce_traffic(*run.all_stats, run.flow_stats, *run.observer, sources);
  const VerbsFlowResults verbs = gather_verbs_results(run.verbs_flows, roce_verbs_flows_here(sc, *run.fabric));

  CollectedResults c;
  c.facts = roce_run_facts(run, out_dir, partial, verbs, sources);
  register_roce_fabric_statistics(c.registry, *run.fabric, run.ledger);
  register_ethernet_port_statistics(c.registry, *run.fabric, run.end);
  std::vector<NamedHca> hcas;
  for (const std::size_t n : run.plan.hosts()) hcas.push_back({run.plan.nodes[n].name, run.fabric->hca(n), run.fabric->here(n)});
  register_dcqcn_statistics(c.registry, hcas);
  run.workloads->register_statistics(c.registry, run.classes, c.facts.study);
  register_fact_tables(c.registry, c.facts);
  c.statistics = c.registry.snapshot(kResultsTop);
  c.results = run_results_json(c.facts, c.statistics);
  c.results["fabric"] = "roce";
  c.results["roce"] = roce_settings_json(sc.roce, *run.fabric);
  if (run.deadlock) {
    nlohmann::json ports = nlohmann::json::array();
    for (const std::string& p : run.deadlock->ports) ports.push_back(p);
    c.results["deadlock"] = {{"time_fs", run.deadlock->detected},
                             {"priority", run.deadlock->priority},
                             {"cycle", ports},
                             {"message", run.deadlock->text()}};
  }
  // The tables the registry has rows for (hca_model.csv), then results.json with their index.
  const std::filesystem::path dir(out_dir);
  const bool compress = sc.outputs.compress;
  const std::vector<StatKindInfo> kinds = c.registry.kind_infos();
  nlohmann::json index = nlohmann::json::object();
  // Across MPI ranks rank 0 alone writes, each table from the ranks' rows (roce_run_ranks.h), and
  // results.json only if every rank computed the same, byte for byte.
  const bool several = ranks::several(), writes = ranks::rank() == 0;
  std::vector<std::string> gathered, not_written;
  for (const ResultTable& rt : result_tables()) {
    if (!has_stats_output(kinds, rt.output)) continue;
    const std::string file = table_file_name(rt.name, compress);
    std::optional<StatsSnapshot> merged;
    if (several) {
      RankRowsMerge m = gather_roce_table(c.registry, rt.output, *run.fabric);
      if (!writes) continue;
      if (!m.merged()) {
        not_written.push_back(fmt::format("{} ({})", file, m.disagreement));
        continue;
      }
      gathered.push_back(file);
      merged = StatsSnapshot{kinds, std::move(m.rows)};
    }
    TableFile t((dir / file).string(), compress);
    if (merged) write_stats_csv(*merged, rt.output, [&t](std::string_view line) { t.write(line); });
    else write_stats_csv(c.registry, rt.output, [&t](std::string_view line) { t.write(line); });
    t.close();
    index[rt.name] = {{"file", file}, {"rows", t.lines() ? t.lines() - 1 : 0}};
  }
  if (const std::string fct = RoceWorkloads::fct_csv(run.classes); !fct.empty() && writes) {
    const std::string file = table_file_name("fct", compress);
    TableFile t((dir / file).string(), compress);
    t.write(fct);
    t.close();
    index["fct"] = {{"file", file}, {"rows", t.lines() ? t.lines() - 1 : 0}};
  }
  bool whole = !several;
  if (several) {
    const std::string json = c.results.dump();
    const std::vector<std::vector<std::uint8_t>> all = ranks::gather(std::vector<std::uint8_t>(json.begin(), json.end()));
    if (writes) {
      const std::string differs = results_disagreement(c.results, all);
      whole = differs.empty();
      if (!whole) not_written.push_back(fmt::format("results.json ({})", differs));
    }
  }
  c.results["tables"] = index;
  if (whole && writes) write_json_atomically((dir / "results.json").string(), c.results);

  RunResult r;
  // What PFC, ECN and DCQCN did, before the line naming results.json (the summary's last).
  std::string summary = run_summary(c.facts, c.results);
  const std::size_t results_line = summary.rfind("results: ", std::string::npos);
  const bool at_line_start = results_line != std::string::npos && (results_line == 0 || summary[results_line - 1] == '\n');
  summary.insert(at_line_start ? results_line : summary.size(), roce_summary_line(c.results));
  r.summary = several ? ranks_summary(summary, whole, gathered, not_written) : summary;
  r.summary += partitions_line(run.fabric->partitioning(), run.plan.cables.size());
  r.results = std::move(c.results);
  r.simulate_wall_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  r.simulate_cpu_seconds = process_cpu_seconds() - cpu_start;
  r.partial = partial;
  if (run.deadlock) {
    r.summary += run.deadlock->text() + "\n";
    r.deadlock = run.deadlock->text();
  }
  return r;
}

}  // namespace ibfsim
