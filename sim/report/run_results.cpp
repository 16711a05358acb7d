#include "sim/report/run_results.h"

#include "sim/report/histogram_json.h"
#include "sim/report/stat_tables.h"

namespace ibfsim {

namespace {

double ns(Time t) { return static_cast<double>(t) / 1e6; }
double ns(double fs) { return fs / 1e6; }

// A latency distribution: count, then min/mean/p50/p99/max in ns.
nlohmann::json latency_json(const LatencyStats& s) {
  nlohmann::json j;
  j["count"] = s.count();
  if (s.count() == 0) return j;
  j["min_ns"] = ns(static_cast<double>(s.min()));
  j["mean_ns"] = ns(s.mean_fs());
  j["p50_ns"] = ns(static_cast<double>(s.percentile(50)));
  j["p99_ns"] = ns(static_cast<double>(s.percentile(99)));
  j["max_ns"] = ns(static_cast<double>(s.max()));
  return j;
}

nlohmann::json throughput_json(const ThroughputFacts& t) {
  return {{"offered_payload_gbps", t.offered_gbps()},
          {"accepted_payload_gbps", t.accepted_gbps()},
          {"accepted_packets", t.accepted_packets},
          {"accepted_payload_bytes", t.accepted_bytes}};
}

nlohmann::json phases_json(const RunFacts& f) {
  return {{"start_ns", ns(f.start)},
          {"warmup_ns", ns(f.warmup)},
          {"measure_ns", ns(f.measure)},
          {"drain_limit_ns", ns(f.drain_limit)},
          {"end_ns", ns(f.end)},
          // null: stopped (Ctrl-C) before the subnet manager had brought the fabric up
          {"fabric_up_ns", f.subnet_manager && !f.subnet_manager->configured ? nlohmann::json(nullptr)
                                                                               : nlohmann::json(ns(f.fabric_up))},
          {"drained", f.drained}};
}

nlohmann::json subnet_manager_json(const std::optional<SubnetManagerFacts>& sm) {
  if (!sm) return {{"mode", "static"}};
  nlohmann::json sweeps = nlohmann::json::array();
  for (const SweepFacts& r : sm->sweeps) {
    sweeps.push_back({{"trigger", r.trigger},
                      {"started_ns", ns(r.started)},
                      {"done_ns", r.done ? nlohmann::json(ns(r.done)) : nlohmann::json(nullptr)},
                      {"smps", r.smps},
                      {"requests", r.requests},
                      {"retries", r.retries},
                      {"errors", r.errors},
                      {"lft_blocks", r.lft_blocks},
                      {"nodes", r.nodes},
                      {"switches", r.switches},
                      {"links", r.links}});
    if (r.ar_smps) sweeps.back()["ar_smps"] = *r.ar_smps;
  }
  // A run stopped before the subnet manager began its first sweep (a signal while the fabric was
  // being built) has none.
  const SweepFacts* first = sm->sweeps.empty() ? nullptr : &sm->sweeps.front();
  nlohmann::json out = {{"mode", "in_band"},
          {"host", sm->host},
          {"port", sm->port},
          {"routing", sm->routing},
          {"lmc", sm->lmc},
          {"bring_up_ns", first ? nlohmann::json(ns(first->done)) : nlohmann::json(nullptr)},
          {"bring_up_smps", first ? first->smps : 0},
          {"smps_sent", sm->smps_sent},
          {"traps_received", sm->traps_received},
          {"sweeps", sweeps},
          {"notes", sm->notes}};
  if (sm->m_key) {
    // Per node in m_key_violations.csv; here the total and how many nodes counted some.
    std::uint64_t total = 0;
    for (const auto& [node, n] : sm->m_key->violations) total += n;
    out["m_key"] = {{"protect_bits", sm->m_key->protect_bits},
                    {"lease_period_s", sm->m_key->lease_period_s},
                    {"bad_m_key_traps", sm->m_key->bad_m_key_traps},
                    {"violations_total", total},
                    {"nodes_with_violations", sm->m_key->violations.size()}};
  }
  return out;
}

nlohmann::json generator_flow_json(const GeneratorFlowFacts& g) {
  return {{"name", g.name},
          {"transport", "ud_send"},
          {"sl", g.sl},
          {"message_size_bytes", g.message_size},
          {"load", g.load},
          {"arrival", g.arrival},
          {"destination", g.destination},
          {"sources", g.sources},
          {"latency", latency_json(*g.latency)},
          {"network_latency", latency_json(*g.network_latency)},
          {"throughput", throughput_json(g.throughput)}};
}

void add_study_results(nlohmann::json& j, const StudyFigures& st) {
  j["histogram_relative_error"] = LatencyHistogram::kRelativeError;
  if (st.load_driven)
    j["load"] = {{"offered", st.offered_load},
                 {"accepted", st.accepted_load},
                 {"offered_payload_gbps", st.offered_gbps},
                 {"accepted_payload_gbps", st.accepted_gbps},
                 {"sources", st.sources}};
  j["message_latency"] = histogram_json(st.message_latency);
  j["packet_latency"] = histogram_json(st.packet_latency);
  j["packet_network_latency"] = histogram_json(st.network_latency);
  j["saturation"] = {{"saturated", st.saturated},
                     {"reason", st.saturation_reason},
                     {"measured_messages_undelivered", st.measured_undelivered},
                     {"messages_waiting_at_sources_at_end", st.waiting_at_sources}};
}

// A fault: when it happened and, with the SM, when the sweep it caused (trap 128) had the fabric
// configured again. Each destination host's gap in its deliveries around the fault is in
// fault_destinations.csv; here how many hosts received anything around it and the longest gap.
nlohmann::json fault_json(const FaultFacts& f) {
  nlohmann::json fj = {{"link", f.link}, {"state", f.up ? "up" : "down"}, {"at_ns", ns(f.at)}};
  if (f.subnet_manager) {
    fj["resweep_done_ns"] = nullptr;
    if (f.resweep_done) {
      fj["resweep_done_ns"] = ns(*f.resweep_done);
      fj["outage_ns"] = ns(*f.resweep_done - f.at);
    }
  }
  if (f.ar_moved) fj["ar_traffic_moved_ns"] = ns(*f.ar_moved - f.at);
  std::optional<Time> max_gap;
  for (const FaultFacts::Destination& d : f.destinations)
    if (d.last_before != kTimeNever && d.first_after != kTimeNever)
      max_gap = std::max(max_gap.value_or(0), d.first_after - d.last_before);
  fj["destination_hosts"] = f.destinations.size();
  fj["max_gap_ns"] = max_gap ? nlohmann::json(ns(*max_gap)) : nlohmann::json(nullptr);
  return fj;
}

// Its settings and the fabric's totals; each switch port's marks, each QP's FECN/BECN/CNP counts and
// congestion control index are in cc_switch_ports.csv, cc_qps.csv and cc_sl_throttles.csv.
nlohmann::json congestion_control_json(const CcSettingsFacts& s, const StatsSnapshot& stats) {
  nlohmann::json j = {{"settings",
                       {{"threshold", s.threshold},
                        {"packet_size_credits", s.packet_size},
                        {"marking_rate", s.marking_rate},
                        {"cs_threshold", s.cs_threshold},
                        {"port_control", s.per_sl ? "sl" : "qp"},
                        {"ccti_timer_us", s.ccti_timer_us},
                        {"ccti_increase", s.ccti_increase},
                        {"ccti_min", s.ccti_min},
                        {"trigger_threshold", s.trigger_threshold},
                        {"ccti_limit", s.ccti_limit},
                        {"cct", s.cct}}}};
  add_stats_json(stats, kResultsCongestionControl, j);
  return j;
}

// Its settings and the totals over every switch (each switch's counts: ar_switches.csv).
nlohmann::json adaptive_routing_json(const ArSettingsFacts& s, const StatsSnapshot& stats) {
  nlohmann::json j = {{"settings",
                       {{"routing", s.routing},
                        {"sls", s.sls},
                        {"flowlet_gap_ns", ns(s.flowlet_gap)},
                        {"credit_levels", s.credit_levels},
                        {"flowlet_margin", s.flowlet_margin},
                        {"fast_recovery", s.fast_recovery},
                        {"congestion_threshold_blocks", s.congestion_threshold},
                        {"congestion_hold_ns", ns(s.congestion_hold)}}}};
  add_stats_json(stats, kResultsAdaptiveRouting, j);
  return j;
}

}  // namespace

double ThroughputFacts::offered_gbps() const {
  const double window_s = static_cast<double>(window) / static_cast<double>(kSec);
  return static_cast<double>(offered_bytes) * 8 / window_s / 1e9;
}

double ThroughputFacts::accepted_gbps() const {
  const double window_s = static_cast<double>(window) / static_cast<double>(kSec);
  return static_cast<double>(accepted_bytes) * 8 / window_s / 1e9;
}

nlohmann::json run_results_json(const RunFacts& f, const StatsSnapshot& stats) {
  nlohmann::json j;
  j["ibfsim_version"] = f.version;
  // Stopped early (Ctrl-C): every figure covers the simulated time up to phases.end_ns only.
  j["partial"] = f.partial;
  // Which signal stopped it (SIGINT, SIGTERM, SIGHUP); null when it ran to its end.
  j["stopped_by"] = f.stopped_by.empty() ? nlohmann::json(nullptr) : nlohmann::json(f.stopped_by);
  // What the run was warned about (the topology's disconnected parts, links negotiating down).
  j["warnings"] = f.warnings;
  j["scenario"] = f.scenario_file;
  j["topology"] = {{"file", f.topology_file}, {"hcas", f.hcas}, {"switches", f.switches}, {"cables", f.cables}};
  j["seed"] = f.seed;
  j["phases"] = phases_json(f);
  j["subnet_manager"] = subnet_manager_json(f.subnet_manager);
  add_stats_json(stats, kResultsTop, j);  // "packets", "management_packets", "simulation"
  j["latency"] = latency_json(*f.latency);
  j["network_latency"] = latency_json(*f.network_latency);
  nlohmann::json flows = nlohmann::json::array();
  for (const auto& flow : f.flows) {
    if (const auto* g = std::get_if<GeneratorFlowFacts>(&flow)) flows.push_back(generator_flow_json(*g));
    else flows.push_back(std::get<nlohmann::json>(flow));
  }
  j["flows"] = flows;
  j["throughput"] = throughput_json(f.throughput);
  add_study_results(j, f.study);
  nlohmann::json faults = nlohmann::json::array();
  for (const FaultFacts& fault : f.faults) faults.push_back(fault_json(fault));
  j["faults"] = faults;
  if (f.congestion_control) j["congestion_control"] = congestion_control_json(*f.congestion_control, stats);
  if (f.adaptive_routing) j["adaptive_routing"] = adaptive_routing_json(*f.adaptive_routing, stats);
  if (!f.attacks.empty()) j["attacks"] = f.attacks;
  return j;
}

}  // namespace ibfsim
