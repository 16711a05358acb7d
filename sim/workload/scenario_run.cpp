#include "sim/workload/scenario_run.h"

#include <fmt/format.h>

#include <chrono>
#include <ctime>
#include <map>
#include <unordered_map>
#include <filesystem>
#include <memory>
#include <optional>
#include <systemc>

#include "sim/core/big_endian.h"
#include "sim/core/calendar_process.h"
#include "sim/core/error.h"
#include "sim/fabric/cable_training.h"
#include "sim/fabric/fabric.h"
#include "sim/report/atomic_file.h"
#include "sim/report/histogram_json.h"
#include "sim/report/latency_histogram.h"
#include "sim/report/progress_meter.h"
#include "sim/report/results_json.h"
#include "sim/report/time_series_plot.h"
#include "sim/transport/cnp.h"
#include "sim/workload/packet_log.h"
#include "sim/workload/port_window.h"
#include "sim/workload/traffic_class.h"
#include "sim/workload/time_series_sampler.h"
#include "sim/workload/traffic_stats.h"
#include "sim/workload/ud_traffic_generator.h"
#include "sim/workload/verbs_flow.h"
#include "sim/fabric/waveform_tracer.h"

namespace ibfsim {

namespace {
double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}
}  // namespace

namespace {

constexpr std::uint32_t kWorkloadQKey = 0x11111111;
// The subnet manager's first sweep must end within this much simulated time (it always does: every
// SMP is answered or given up after its retries).
constexpr Time kBringUpLimit = 1000 * kSec;

// The UD traffic generator's QP: the first QP created on every HCA (verbs flows' QPs come after).
constexpr Qpn kGeneratorQpn = 0x100;

// A packet of the UD traffic generator (to its QP or to a multicast group), not of a verbs flow.
bool generator_packet(const Packet& p) {
  const std::size_t bth = kLrhBytes + ((p.header[1] & 3) == kLnhIbaGlobal ? kGrhBytes : 0);
  const Qpn dqp = load_be24(p.header.data() + bth + 5);
  return dqp == kGeneratorQpn || dqp == kMulticastQpn;
}

// Around each fault, per destination host: its last delivery before the fault and its first after,
// so that the gap shows which destinations the fault cut off and for how long.
struct FaultWatch {
  Time at = 0;
  std::vector<Time> last_before;  // [node]; kTimeNever: none
  std::vector<Time> first_after;
};

// Forwards deliveries to the statistics (overall and per flow) and to the verbs flows that watch
// them, and ends the run once it is over: the generators' traffic is over (the drain phase has
// begun) and every packet created has been delivered or dropped, and every verbs flow is done. With
// verbs flows the run ends `settle` later (the longest wire_to_completion), so that every
// completion a delivered packet causes is posted and counted.
class RunObserver : public DeliveryObserver, public VerbsFlowOwner {
 public:
  RunObserver(TrafficStats& all, std::vector<TrafficStats>& flows, const PacketLedger& ledger, Time generation_end,
              bool generators, const std::vector<std::unique_ptr<VerbsFlow>>& verbs, Time settle,
              ScheduledModule* clock, std::vector<FaultWatch>& faults,
              const std::vector<std::unique_ptr<TrafficClass>>& classes)
      : all_(all), flows_(flows), ledger_(ledger), generation_end_(generation_end), generators_(generators),
        verbs_(verbs), settle_(settle), clock_(clock), faults_(faults), classes_(classes) {}
  // Once the traffic classes exist: which QPs' deliveries are theirs; `node_of`: each HCA's node.
  void watch_classes(std::map<const Hca*, std::size_t> node_of) {
    node_of_ = std::move(node_of);
    for (const auto& c : classes_) {
      for (std::uint64_t k : c->delivery_keys()) class_of_[k] = c.get();
      if (c->spec().verbs()) needs_settle_ = true;
    }
  }
  // Every measured UD generator packet (a message of one packet), for the overall histograms.
  LatencyHistogram generator_message_latency, generator_network_latency;
  // Once the verbs flows exist: which of them watch which QPs' deliveries.
  void watch_flows() {
    for (const auto& f : verbs_)
      for (const auto& w : f->watched_qps()) watched_[w] = f.get();
  }
  void on_delivered(Hca& hca, const Packet& p, Time tail) override {
    // A CNP is congestion control's own packet, part of no flow.
    if (cnps_possible && is_cnp(p)) return check_end(tail);
    for (FaultWatch& f : faults_) {
      const std::size_t n = hca.node_index();
      if (tail < f.at) f.last_before[n] = tail;
      else if (f.first_after[n] == kTimeNever) f.first_after[n] = tail;
    }
    if (!class_of_.empty()) {
      const std::size_t node = node_of_.at(&hca);
      const std::size_t bth = kLrhBytes + ((p.header[1] & 3) == kLnhIbaGlobal ? kGrhBytes : 0);
      auto it = class_of_.find(TrafficClass::delivery_key(node, load_be24(p.header.data() + bth + 5)));
      if (it != class_of_.end()) {
        it->second->on_delivered(node, p, tail);
        check_end(tail);
        return;
      }
    }
    if (generator_packet(p) && p.measured) {
      generator_message_latency.add(tail - p.created);
      generator_network_latency.add(tail - p.injected);
    }
    if (verbs_.empty() || generator_packet(p)) {
      all_.on_delivered(hca, p, tail);
      flows_.at(p.flow).on_delivered(hca, p, tail);
    } else if (!watched_.empty()) {
      const std::size_t bth = kLrhBytes + ((p.header[1] & 3) == kLnhIbaGlobal ? kGrhBytes : 0);
      auto it = watched_.find({&hca, load_be24(p.header.data() + bth + 5)});
      if (it != watched_.end()) it->second->on_delivered(hca, p);
    }
    check_end(tail);
  }
  void flow_progress() override { check_end(ScheduledModule::now()); }
  bool cnps_possible = false;  // congestion control is on
  // Traffic classes: look again when their sources stop, in case everything was delivered before.
  void check_at(Time t) { clock_->schedule<&RunObserver::check_due>(t, this); }
  // Events (event.h): a look at whether the run is over, and the end of the settling time.
  void check_due() { check_end(ScheduledModule::now()); }
  void settled() {
    pending_ = false;
    if (can_end(ScheduledModule::now())) sc_core::sc_stop();
  }

 private:
  bool can_end(Time t) const {
    if (generators_ && t < generation_end_) return false;
    if (ledger_.created_count() != ledger_.delivered_count() + ledger_.dropped_total() + ledger_.replicated_count())
      return false;
    for (const auto& f : verbs_)
      if (!f->done()) return false;
    for (const auto& c : classes_)
      if (!c->done(t)) return false;
    return true;
  }
  void check_end(Time t) {
    if (!can_end(t)) return;
    if (verbs_.empty() && !needs_settle_) {
      sc_core::sc_stop();
    } else if (!pending_) {
      pending_ = true;
      clock_->schedule<&RunObserver::settled>(t + settle_, this);
    }
  }

  TrafficStats& all_;
  std::vector<TrafficStats>& flows_;
  const PacketLedger& ledger_;
  Time generation_end_;
  bool generators_;
  const std::vector<std::unique_ptr<VerbsFlow>>& verbs_;
  Time settle_;
  ScheduledModule* clock_;
  bool pending_ = false;
  std::map<std::pair<const Hca*, Qpn>, VerbsFlow*> watched_;
  std::vector<FaultWatch>& faults_;
  const std::vector<std::unique_ptr<TrafficClass>>& classes_;
  std::unordered_map<std::uint64_t, TrafficClass*> class_of_;
  std::map<const Hca*, std::size_t> node_of_;
  bool needs_settle_ = false;  // verbs traffic classes: completions follow deliveries
};

double ns(double fs) { return fs / 1e6; }

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

// Per port and per VL statistics, as CSV tables and as results.json entries.
struct PortTables {
  std::string ports_csv =
      "node,port,peer,rate,state,tx_packets,tx_bytes,rx_packets,rx_bytes,tx_flow_control,rx_flow_control,"
      "busy_fraction,vl15_dropped,rcv_errors,tx_ebp\n";
  std::string vls_csv =
      "node,port,vl,tx_packets,tx_bytes,rx_packets,rx_bytes,credit_stall_ns,rx_buffer_blocks,"
      "rx_buffer_mean_blocks,rx_buffer_max_blocks\n";
  std::string discards_csv = "node,port,reason,packets\n";
  // Over the measurement window (port_window.h).
  std::string window_ports_csv = "node,port,peer,busy_fraction\n";
  std::string window_vls_csv = "node,port,vl,credit_stall_ns,credit_stall_fraction\n";
  nlohmann::json json = nlohmann::json::array();
};

PortTables port_tables(Fabric& fabric) {
  PortTables t;
  const Topology& topo = fabric.topology();
  const Time end = ScheduledModule::now();
  const auto cables = topo.port_cables();
  auto peer_name = [&](std::size_t n, unsigned p) {
    const PortRef far = topo.cables[*cables[n][p]].far_end(n);
    return topo.nodes[far.node].name + "/" + std::to_string(far.port);
  };
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    for (unsigned p = 1; p <= topo.nodes[n].num_ports; ++p) {
      LinkPort& lp = fabric.port(n, p);
      if (!lp.connected()) continue;
      const LinkPortStats& s = lp.stats();
      const double busy = end ? static_cast<double>(s.tx_busy) / static_cast<double>(end) : 0.0;
      fmt::format_to(std::back_inserter(t.ports_csv), "{},{},{},{},{},{},{},{},{},{},{},{:.6f},{},{},{}\n",
                     topo.nodes[n].name, p, peer_name(n, p), lp.rate().name(), port_state_name(lp.state()),
                     s.tx_packets, s.tx_bytes, s.rx_packets, s.rx_bytes, s.tx_flow_control, s.rx_flow_control, busy,
                     s.vl15_dropped, s.rx_errors(), s.tx_ebp);
      nlohmann::json pj = {{"node", topo.nodes[n].name},
                           {"port", p},
                           {"peer", peer_name(n, p)},
                           {"state", port_state_name(lp.state())},
                           {"tx_packets", s.tx_packets},
                           {"tx_bytes", s.tx_bytes},
                           {"rx_packets", s.rx_packets},
                           {"rx_bytes", s.rx_bytes},
                           {"tx_flow_control", s.tx_flow_control},
                           {"rx_flow_control", s.rx_flow_control},
                           {"busy_fraction", busy},
                           {"vl15_dropped", s.vl15_dropped},
                           {"rcv_errors", {{"phy_error", s.rx_phy_errors}, {"vcrc_error", s.rx_vcrc_errors}, {"ebp", s.rx_ebp}}},
                           {"tx_ebp", s.tx_ebp},
                           {"tx_skips", s.tx_skips},
                           {"vl15_tx_packets", lp.vl_stats(kVl15).tx_packets},
                           {"vl15_rx_packets", lp.vl_stats(kVl15).rx_packets}};
      nlohmann::json vls = nlohmann::json::array();
      for (unsigned v = 0; v < lp.op_vls(); ++v) {
        const VlStats& vs = lp.vl_stats(static_cast<std::uint8_t>(v));
        const ReceiveBuffer& rb = lp.rx_buffer(static_cast<std::uint8_t>(v));
        fmt::format_to(std::back_inserter(t.vls_csv), "{},{},{},{},{},{},{},{},{},{:.3f},{}\n", topo.nodes[n].name, p, v,
                       vs.tx_packets, vs.tx_bytes, vs.rx_packets, vs.rx_bytes, ns(static_cast<double>(vs.credit_stall)),
                       rb.capacity(), rb.mean_occupied(end), rb.max_occupied());
        vls.push_back({{"vl", v},
                       {"tx_packets", vs.tx_packets},
                       {"tx_bytes", vs.tx_bytes},
                       {"rx_packets", vs.rx_packets},
                       {"rx_bytes", vs.rx_bytes},
                       {"credit_stall_ns", ns(static_cast<double>(vs.credit_stall))},
                       {"rx_buffer_blocks", rb.capacity()},
                       {"rx_buffer_mean_blocks", rb.mean_occupied(end)},
                       {"rx_buffer_max_blocks", rb.max_occupied()}});
      }
      pj["vls"] = vls;
      nlohmann::json discards = nlohmann::json::object();
      Switch* sw = fabric.switch_at(n);
      Hca* hca = fabric.hca(n);
      for (int r = 0; r < static_cast<int>(DropReason::kCount); ++r) {
        const auto reason = static_cast<DropReason>(r);
        const std::uint64_t c = sw ? sw->port_discards(static_cast<PortNum>(p), reason)
                                : hca ? hca->port_discards(static_cast<PortNum>(p), reason)
                                      : 0;
        if (c == 0) continue;
        discards[drop_reason_name(reason)] = c;
        fmt::format_to(std::back_inserter(t.discards_csv), "{},{},{},{}\n", topo.nodes[n].name, p,
                       drop_reason_name(reason), c);
      }
      pj["discards"] = discards;
      t.json.push_back(pj);
    }
  }
  return t;
}

// results.json "congestion_control": the settings, every FECN a switch port marked, and each QP's
// FECN/BECN/CNP counts and congestion control index.
nlohmann::json congestion_control_json(const Scenario& sc, Fabric& fabric) {
  const CongestionControlSettings& s = sc.congestion_control;
  const Topology& topo = fabric.topology();
  nlohmann::json cct = nlohmann::json::array();
  for (std::size_t i = 0; i <= s.cct.ccti_limit && i < s.cct.entries.size(); ++i)
    cct.push_back(fmt::format("{}:{}", s.cct.entries[i].shift, s.cct.entries[i].multiplier));
  nlohmann::json j = {{"settings",
                       {{"threshold", s.threshold},
                        {"packet_size_credits", s.packet_size},
                        {"marking_rate", s.marking_rate},
                        {"cs_threshold", s.cs_threshold},
                        {"port_control", s.per_sl ? "sl" : "qp"},
                        {"ccti_timer_us", s.ca.ccti_timer * 1.024},
                        {"ccti_increase", s.ca.ccti_increase},
                        {"ccti_min", s.ca.ccti_min},
                        {"trigger_threshold", s.ca.trigger_threshold},
                        {"ccti_limit", s.cct.ccti_limit},
                        {"cct", cct}}},
                      {"mads_sent", fabric.cc_mads_sent()},
                      {"mads_applied", fabric.cc_mads_applied()}};
  std::uint64_t marked = 0;
  nlohmann::json ports = nlohmann::json::array();
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    const Switch* sw = fabric.switch_at(n);
    if (!sw || !sw->congestion_detector()) continue;
    for (unsigned p = 1; p <= sw->num_ports(); ++p) {
      const CongestionDetector::PortStats& st = sw->congestion_detector()->stats(static_cast<PortNum>(p));
      marked += st.fecn_marked;
      if (st.congested_root + st.congested_victim + st.credit_starved == 0) continue;
      ports.push_back({{"node", topo.nodes[n].name},
                       {"port", p},
                       {"fecn_marked", st.fecn_marked},
                       {"congested_root", st.congested_root},
                       {"congested_victim", st.congested_victim},
                       {"credit_starved", st.credit_starved},
                       {"eligible", st.eligible},
                       {"too_small", st.too_small}});
    }
  }
  std::uint64_t fecn = 0, on_response = 0, cnp_sent = 0, becn = 0, cnp_received = 0;
  nlohmann::json qps = nlohmann::json::array(), throttles = nlohmann::json::array();
  auto throttle_json = [](nlohmann::json& o, const CcThrottle::State& t) {
    o["ccti"] = t.ccti;
    o["max_ccti"] = t.max_ccti;
    o["becns_taken"] = t.becns;
    o["timer_decrements"] = t.timer_decrements;
    o["trigger_events"] = t.trigger_events;
    o["delayed_packets"] = t.delayed_packets;
  };
  for (std::size_t n : topo.hcas()) {
    const Hca& h = *fabric.hca(n);
    for (const auto& [qpn, c] : h.cc_counters()) {
      fecn += c.fecn_received, on_response += c.becn_on_response, cnp_sent += c.cnp_sent;
      becn += c.becn_received, cnp_received += c.cnp_received;
      nlohmann::json q = {{"hca", topo.nodes[n].name},
                          {"qpn", qpn},
                          {"fecn_received", c.fecn_received},
                          {"becn_on_response", c.becn_on_response},
                          {"cnp_sent", c.cnp_sent},
                          {"becn_received", c.becn_received},
                          {"cnp_received", c.cnp_received}};
      if (!s.per_sl)
        if (const CcThrottle::State* t = h.cc_throttle()->state(qpn)) throttle_json(q, *t);
      qps.push_back(q);
    }
    if (s.per_sl)
      for (const auto& [key, t] : h.cc_throttle()->states()) {
        nlohmann::json o = {{"hca", topo.nodes[n].name}, {"port", (key >> 4) & 0xFF}, {"sl", key & 15}};
        throttle_json(o, t);
        throttles.push_back(o);
      }
  }
  j["totals"] = {{"fecn_marked", marked},       {"fecn_received", fecn}, {"becn_on_response", on_response},
                 {"cnp_sent", cnp_sent},        {"cnp_received", cnp_received}, {"becn_received", becn}};
  j["switch_ports"] = ports;
  j["qps"] = qps;
  if (s.per_sl) j["sl_throttles"] = throttles;
  return j;
}

// The time series of outputs.time_series: payload Gb/s of every flow, the CCTI of each flow's
// sending QP (or port and SL) when congestion control is on, the output queue of the listed
// switch ports; and the plot panels over them.
std::unique_ptr<TimeSeriesSampler> time_series_sampler(const Scenario& sc, Fabric& fabric,
                                                       const std::vector<TrafficStats>& flow_stats,
                                                       const std::vector<std::vector<UdTrafficGenerator*>>& gens,
                                                       const std::vector<std::unique_ptr<VerbsFlow>>& verbs,
                                                       const std::vector<std::unique_ptr<TrafficClass>>& classes,
                                                       Time start, Time end, std::vector<PlotPanel>& panels) {
  const Topology& topo = fabric.topology();
  auto sampler = std::make_unique<TimeSeriesSampler>(*fabric.hca(topo.hcas().front()), start,
                                                     sc.outputs.time_series.interval, end);
  PlotPanel rate{"payload throughput per flow", "Gb/s", {}}, ccti{"congestion control index (CCTI)", "CCTI", {}},
      queue{"output queue depth", "64-byte blocks", {}};
  // CSV column of the figure added next: time is column 1.
  auto column = [&](PlotPanel& p) { p.columns.push_back(sampler->columns() + 2); };
  for (const auto& [kind, k] : sc.workload_order) {
    column(rate);
    if (kind == Scenario::EntryKind::kVerbs) {
      const VerbsFlow* f = verbs[k].get();
      sampler->add_rate(verbs[k]->spec().name + " Gb/s", [f] { return f->bytes_completed(); });
    } else if (kind == Scenario::EntryKind::kClass) {
      const TrafficClass* c = classes[k].get();
      sampler->add_rate(c->spec().name + " Gb/s", [c] { return c->delivered_payload_bytes(); });
    } else {
      const TrafficStats* st = &flow_stats[k];
      sampler->add_rate(sc.flows[k].name + " Gb/s", [st] { return st->total_payload_bytes(); });
    }
  }
  if (sc.congestion_control.enabled) {
    // One column per distinct (HCA, throttle key) that sends a flow.
    std::vector<std::pair<const Hca*, CcThrottle::Key>> seen;
    auto add_ccti = [&](const Hca& h, Qpn qpn, std::uint8_t sl) {
      const CcThrottle::Key key = h.cc_throttle()->key(qpn, 1, sl);
      if (std::find(seen.begin(), seen.end(), std::make_pair(&h, key)) != seen.end()) return;
      seen.emplace_back(&h, key);
      column(ccti);
      const std::string who = sc.congestion_control.per_sl ? fmt::format("sl{}", sl) : fmt::format("qp0x{:x}", qpn);
      const Hca* hp = &h;
      sampler->add_value("CCTI " + std::string(h.name()) + "/" + who, [hp, key] { return hp->cc_throttle()->ccti(key); });
    };
    // Traffic classes use many QPs each: their indices are in results.json (congestion_control.qps).
    for (const auto& [kind, k] : sc.workload_order) {
      if (kind == Scenario::EntryKind::kVerbs) {
        add_ccti(verbs[k]->requester_hca(), verbs[k]->requester_qp()->qpn(), verbs[k]->spec().sl);
      } else if (kind == Scenario::EntryKind::kGenerator) {
        for (const UdTrafficGenerator* g : gens[k]) add_ccti(g->hca(), g->src_qp(), sc.flows[k].sl);
      }
    }
  }
  for (const auto& [node, port] : sc.outputs.time_series.ports) {
    column(queue);
    const Switch* sw = fabric.switch_at(node);
    const auto p = static_cast<PortNum>(port);
    sampler->add_value("queue " + topo.nodes[node].name + "/" + std::to_string(port) + " blocks",
                       [sw, p] { return sw->output_queue_blocks(p); });
  }
  panels = {rate, ccti, queue};
  sampler->start();
  return sampler;
}

nlohmann::json throughput_json(std::uint64_t offered_bytes, const TrafficStats& st, Time window) {
  const double window_s = static_cast<double>(window) / static_cast<double>(kSec);
  return {{"offered_payload_gbps", static_cast<double>(offered_bytes) * 8 / window_s / 1e9},
          {"accepted_payload_gbps", static_cast<double>(st.window_payload_bytes()) * 8 / window_s / 1e9},
          {"accepted_packets", st.window_packets()},
          {"accepted_payload_bytes", st.window_payload_bytes()}};
}


// The figures a load sweep plots, over every load-driven flow and class of the run.
struct StudyFigures {
  bool load_driven = false;
  double offered_load = 0, accepted_load = 0;  // fractions of the sources' injection links
  double offered_gbps = 0, accepted_gbps = 0;  // payload
  std::size_t sources = 0;
  LatencyHistogram message_latency, packet_latency, network_latency;
  std::uint64_t measured_undelivered = 0, waiting_at_sources = 0;
  bool saturated = false;
  std::string saturation_reason;
};

StudyFigures study_figures(const Scenario& sc, const std::vector<std::vector<UdTrafficGenerator*>>& flow_generators,
                           const std::vector<TrafficStats>& flow_stats,
                           const std::vector<std::unique_ptr<TrafficClass>>& classes, const RunObserver& observer,
                           Fabric& fabric, Time end, Time end_limit) {
  StudyFigures st;
  ClassTotals t;
  for (const auto& c : classes) {
    if (c->spec().collective()) continue;
    st.load_driven = true;
    c->add_totals(t);
    st.message_latency.merge(c->message_latency());
    st.packet_latency.merge(c->packet_latency());
    st.network_latency.merge(c->network_latency());
    st.measured_undelivered += c->measured_undelivered();
    st.waiting_at_sources += c->messages_waiting_at_sources();
  }
  // UD generator flows: every message is one packet of a fixed size.
  for (std::size_t f = 0; f < sc.flows.size(); ++f) {
    const WorkloadSpec& w = sc.flows[f];
    if (flow_generators[f].empty()) continue;
    st.load_driven = true;
    const bool group = std::any_of(sc.multicast.begin(), sc.multicast.end(),
                                   [&](const auto& g) { return g.first == w.destination; });
    const Hca* first = &flow_generators[f].front()->hca();
    std::size_t node = 0;
    for (std::size_t n : fabric.topology().hcas())
      if (fabric.hca(n) == first) node = n;
    const LinkPort& port = fabric.port(node, 1);
    const double pkt_fs = static_cast<double>(port.symbols_for(packet_wire_bytes(28, w.message_size))) * port.clock().period_fs();
    std::uint64_t posted = 0;
    for (const auto* g : flow_generators[f]) posted += g->measured_posted();
    t.offered_wire_fs += static_cast<double>(posted) * pkt_fs;
    t.offered_payload_bytes += posted * w.message_size;
    t.accepted_wire_fs += static_cast<double>(flow_stats[f].window_packets()) * pkt_fs;
    t.accepted_payload_bytes += flow_stats[f].window_payload_bytes();
    t.sources += flow_generators[f].size();
    if (!group && posted > flow_stats[f].latency().count()) st.measured_undelivered += posted - flow_stats[f].latency().count();
  }
  st.message_latency.merge(observer.generator_message_latency);
  st.packet_latency.merge(observer.generator_message_latency);
  st.network_latency.merge(observer.generator_network_latency);
  if (!st.load_driven) return st;
  const double window = static_cast<double>(sc.phases.measure);
  st.sources = t.sources;
  if (t.sources) {
    st.offered_load = t.offered_wire_fs / (window * static_cast<double>(t.sources));
    st.accepted_load = t.accepted_wire_fs / (window * static_cast<double>(t.sources));
  }
  st.offered_gbps = static_cast<double>(t.offered_payload_bytes) * 8 / (window / 1e15) / 1e9;
  st.accepted_gbps = static_cast<double>(t.accepted_payload_bytes) * 8 / (window / 1e15) / 1e9;
  // Saturated: the run could not drain. It reached its time limit with measured messages still
  // undelivered (the network accepts less than is offered, or it deadlocked).
  if (end >= end_limit && st.measured_undelivered > 0) {
    st.saturated = true;
    st.saturation_reason = fmt::format(
        "{} measured messages not delivered {} after the measurement window ({} packets in the network, {} queued "
        "and {} messages waiting at the sources)",
        st.measured_undelivered, format_duration(end - (end_limit - sc.phases.drain)),
        fabric.pool().live() - fabric.queued_at_sources(), fabric.queued_at_sources(), st.waiting_at_sources);
  }
  return st;
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

// Utilization and credit stalls in the measurement window, into the port tables.
void add_port_window(PortTables& tables, const PortWindow* pw, Fabric& fabric) {
  if (!pw || !pw->complete()) return;
  const Topology& topo = fabric.topology();
  const auto figs = pw->figures();
  IBFSIM_CHECK(figs.size() == tables.json.size(), "port window: port lists differ");
  for (std::size_t i = 0; i < figs.size(); ++i) {
    const PortWindow::PortFigures& f = figs[i];
    nlohmann::json& pj = tables.json[i];
    IBFSIM_CHECK(pj["node"] == topo.nodes[f.node].name && pj["port"] == f.port, "port window: port order differs");
    nlohmann::json stalls = nlohmann::json::array();
    for (Time s : f.credit_stall) stalls.push_back(ns(static_cast<double>(s)));
    pj["window"] = {{"busy_fraction", f.busy_fraction}, {"credit_stall_ns", stalls}};
    fmt::format_to(std::back_inserter(tables.window_ports_csv), "{},{},{},{:.6f}\n", topo.nodes[f.node].name, f.port,
                   pj["peer"].get<std::string>(), f.busy_fraction);
    for (std::size_t v = 0; v < f.credit_stall.size(); ++v)
      fmt::format_to(std::back_inserter(tables.window_vls_csv), "{},{},{},{:.3f},{:.6f}\n", topo.nodes[f.node].name,
                     f.port, v, ns(static_cast<double>(f.credit_stall[v])),
                     static_cast<double>(f.credit_stall[v]) / static_cast<double>(pw->window()));
  }
}

// classes.csv: one row per traffic class, then the run's totals.
std::string classes_csv(const std::vector<std::unique_ptr<TrafficClass>>& classes, const StudyFigures& st) {
  std::string out =
      "name,pattern,transport,verb,sl,offered_load,accepted_load,offered_payload_gbps,accepted_payload_gbps,"
      "messages_measured,messages_undelivered,msg_mean_ns,msg_p50_ns,msg_p90_ns,msg_p99_ns,msg_p99_9_ns,msg_max_ns,"
      "pkt_mean_ns,pkt_p99_ns,net_mean_ns,net_p99_ns,fct_mean_ns\n";
  auto lat = [](const LatencyHistogram& h, bool full) {
    if (h.count() == 0) return std::string(full ? ",,,,," : ",");
    const std::string head = fmt::format("{:.3f}", h.mean_fs() / 1e6);
    if (!full) return head + fmt::format(",{:.3f}", static_cast<double>(h.percentile(99)) / 1e6);
    return head + fmt::format(",{:.3f},{:.3f},{:.3f},{:.3f},{:.3f}", static_cast<double>(h.percentile(50)) / 1e6,
                              static_cast<double>(h.percentile(90)) / 1e6, static_cast<double>(h.percentile(99)) / 1e6,
                              static_cast<double>(h.percentile(99.9)) / 1e6, static_cast<double>(h.max()) / 1e6);
  };
  for (const auto& c : classes) {
    const nlohmann::json r = c->results();
    const TrafficClassSpec& s = c->spec();
    std::string load = ",,,";
    std::string fct;
    if (s.collective()) {
      if (r["collective"].contains("fct_ns")) fct = fmt::format("{:.3f}", r["collective"]["fct_ns"]["mean"].get<double>());
    } else {
      load = fmt::format("{:.6f},{:.6f},{:.4f},{:.4f}", r["offered"]["load"].get<double>(), r["accepted"]["load"].get<double>(),
                         r["offered"]["payload_gbps"].get<double>(), r["accepted"]["payload_gbps"].get<double>());
    }
    out += fmt::format("{},{},{},{},{},{},{},{},{},{},{},{}\n", s.name, pattern_name(s.pattern.kind),
                       class_transport_name(s.transport), class_verb_name(s.verb), s.sl, load,
                       r["messages"]["measured"].get<std::uint64_t>(), c->measured_undelivered(),
                       lat(c->message_latency(), true), lat(c->packet_latency(), false),
                       lat(c->network_latency(), false), fct);
  }
  if (st.load_driven)
    out += fmt::format("all,,,,,{:.6f},{:.6f},{:.4f},{:.4f},{},{},{},{},{},\n", st.offered_load, st.accepted_load,
                       st.offered_gbps, st.accepted_gbps, st.message_latency.count() + st.measured_undelivered,
                       st.measured_undelivered, lat(st.message_latency, true), lat(st.packet_latency, false),
                       lat(st.network_latency, false));
  return out;
}

}  // namespace

RunResult run_scenario(const Scenario& sc, const std::string& out_dir) {
  init_time_resolution();
  // sc_stop() at the end of the drain phase is how a run normally ends: no message for it.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  std::filesystem::create_directories(out_dir);
  const std::filesystem::path dir(out_dir);

  const bool in_band = sc.subnet_manager.in_band;
  FabricOptions fo;
  fo.carry_payload = sc.outputs.data_check;
  if (sc.outputs.pcap) fo.pcap_path = (dir / "trace.pcap").string();
  fo.pcap_link_packets = sc.outputs.pcap_link_packets;
  fo.link = sc.link;
  fo.phy = sc.phy;
  fo.seed = sc.seed;
  // The end of the run is known once the fabric is up (set_horizon below).
  fo.horizon = kTimeNever;
  std::string sm_host;
  if (in_band) {
    const SubnetManagerSettings st = subnet_manager_settings(sc);
    sm_host = sc.topology.nodes[st.host].name;
    fo.subnet_manager = st;
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
  Fabric fabric(sc.topology, fo);
  const Topology& topo = fabric.topology();
  // Waveforms trace from time 0, bring-up included.
  std::unique_ptr<WaveformTracer> waves;
  if (sc.outputs.vcd) waves = std::make_unique<WaveformTracer>(fabric, (dir / "waves").string(), sc.outputs.vcd_ports);

  // Bring-up: with the subnet manager, run until its first sweep has configured the fabric (LIDs,
  // routes, ports Active); without it, the links are up when the last one has trained.
  Time fabric_up = 0;
  const auto wall_start = std::chrono::steady_clock::now();
  const double bring_up_cpu_start = thread_cpu_seconds();
  if (in_band) {
    // Only the first sweep pauses the run; the callback outlives this block.
    fabric.subnet_manager()->set_on_sweep_done([first = true](const SweepRecord&) mutable {
      if (first) CalendarProcess::pause();
      first = false;
    });
    {
      ProgressMeter meter(0, kTimeNever, &CalendarProcess::published_now);
      CalendarProcess::run_for(kBringUpLimit);
    }
    ScheduledModule::rethrow_failure();
    // Ctrl-C during the bring-up: the run below stops at once and the results say partial.
    if (!fabric.subnet_manager()->configured() && !CalendarProcess::stop_requested())
      throw SimError("the subnet manager did not finish its first sweep: the simulation ran out of events");
    fabric_up = ScheduledModule::now();
  } else {
    fabric_up = all_links_up_at(sc.topology, sc.link.training_delay);
  }
  // Traffic starts once the fabric is up (or when the scenario says); phases and faults count from there.
  const Time start = sc.phases.start ? *sc.phases.start : fabric_up;
  if (in_band && start < fabric_up)
    throw InputError(fmt::format(
        "{}: phases.start {} is before the subnet manager brought the fabric up at {}: traffic needs the LIDs it "
        "assigns (leave phases.start unset, or run without it: subnet_manager: static)",
        sc.file, format_duration(start), format_duration(fabric_up)));
  const Time measure_begin = start + sc.phases.warmup;
  const Time measure_end = measure_begin + sc.phases.measure;
  // Verbs flows and collectives run until they are done, within phases.limit; load-driven traffic
  // (generator flows, traffic classes) by the phases.
  bool load_driven = !sc.flows.empty(), runs_to_done = !sc.verbs_flows.empty();
  for (const TrafficClassSpec& c : sc.classes) (c.collective() ? runs_to_done : load_driven) = true;
  const Time end_limit = std::max(load_driven || !runs_to_done ? measure_end + sc.phases.drain : 0,
                                  runs_to_done ? start + sc.phases.limit : 0);
  fabric.set_horizon(end_limit);
  const double bring_up_cpu = thread_cpu_seconds() - bring_up_cpu_start;
  const double bring_up_wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall_start).count();
  const std::uint64_t bring_up_actions = fabric.events_run(), bring_up_hops = fabric.packet_hops();
  std::vector<LinkFault> faults = sc.faults;
  for (LinkFault& f : faults) f.at += start;
  fabric.schedule_faults(faults);

  // Every HCA gets one UD QP (QPN 0x100) with the workload's Q_Key.
  std::vector<std::size_t> hca_nodes = topo.hcas();
  std::vector<Qpn> qpn(topo.nodes.size(), 0);
  for (std::size_t n : hca_nodes) qpn[n] = fabric.hca(n)->create_ud_qp(kWorkloadQKey);
  for (std::size_t g = 0; g < fo.multicast.size(); ++g)
    for (std::size_t m : fo.multicast[g].members)
      fabric.hca(m)->join_multicast(static_cast<Lid>(kMulticastLidBase + g), qpn[m]);

  // Verbs flows: their QPs, memory and connections are set up now (time 0); each starts at
  // phases.start + its own start.
  std::vector<std::unique_ptr<VerbsFlow>> verbs_flows;
  Time settle = 0;
  std::vector<HcaConfig> models(topo.nodes.size());
  for (std::size_t n : hca_nodes) {
    sc.hca_model.apply(topo.nodes[n].name, models[n]);
    settle = std::max(settle, models[n].wire_to_completion);
  }
  TrafficStats all_stats(measure_begin, measure_end);
  std::vector<TrafficStats> flow_stats(sc.flows.size(), TrafficStats(measure_begin, measure_end));
  std::vector<std::unique_ptr<TrafficClass>> classes;
  std::vector<FaultWatch> watches;
  for (const LinkFault& f : faults)
    watches.push_back(FaultWatch{f.at, std::vector<Time>(topo.nodes.size(), kTimeNever),
                                 std::vector<Time>(topo.nodes.size(), kTimeNever)});
  RunObserver observer(all_stats, flow_stats, fabric.ledger(), measure_end, !sc.flows.empty(), verbs_flows, settle,
                       fabric.hca(hca_nodes.front()), watches, classes);
  for (std::size_t i = 0; i < sc.verbs_flows.size(); ++i) {
    const VerbsFlowSpec& v = sc.verbs_flows[i];
    const std::size_t a = *topo.find_node(v.from), b = *topo.find_node(v.to);
    verbs_flows.push_back(std::make_unique<VerbsFlow>(v, i, *fabric.hca(a), *fabric.hca(b), models[a], models[b],
                                                      sc.outputs.data_check, start + v.start, observer));
    verbs_flows.back()->setup();
  }
  observer.watch_flows();
  // Traffic classes: their QPs come after the verbs flows' on every HCA.
  {
    std::vector<Time> completion_delay(topo.nodes.size(), 0);
    std::map<const Hca*, std::size_t> node_of;
    for (std::size_t n : hca_nodes) {
      completion_delay[n] = models[n].wire_to_completion;
      node_of[fabric.hca(n)] = n;
    }
    for (std::size_t i = 0; i < sc.classes.size(); ++i) {
      classes.push_back(std::make_unique<TrafficClass>(sc.classes[i], i, fabric, sc.seed,
                                                       ClassWindow{start, measure_begin, measure_end}, completion_delay,
                                                       observer));
      classes.back()->setup();
    }
    observer.watch_classes(std::move(node_of));
    if (!classes.empty()) observer.check_at(measure_end);
  }
  // Port utilization and credit stalls over the measurement window, for load-driven traffic.
  std::unique_ptr<PortWindow> port_window;
  if (load_driven) {
    port_window = std::make_unique<PortWindow>(fabric, measure_begin, measure_end);
    port_window->setup(*fabric.hca(hca_nodes.front()));
  }
  observer.cnps_possible = sc.congestion_control.enabled;
  PacketLog packet_log;
  for (std::size_t n : hca_nodes) {
    fabric.hca(n)->set_delivery_observer(&observer);
    if (sc.outputs.packet_log) fabric.hca(n)->set_send_observer(&packet_log);
  }

  // A host never sends to itself: with a fixed destination, that host does not send.
  std::vector<std::unique_ptr<UdTrafficGenerator>> generators;
  std::vector<std::uint64_t> flow_offered(sc.flows.size(), 0);
  std::vector<std::vector<UdTrafficGenerator*>> flow_generators(sc.flows.size());
  for (std::size_t f = 0; f < sc.flows.size(); ++f) {
    const WorkloadSpec& w = sc.flows[f];
    std::vector<std::size_t> sources;
    if (w.sources.empty()) sources = hca_nodes;
    else
      for (const auto& name : w.sources) sources.push_back(*topo.find_node(name));
    std::optional<Lid> group_lid;
    for (std::size_t g = 0; g < sc.multicast.size(); ++g)
      if (sc.multicast[g].first == w.destination) group_lid = static_cast<Lid>(kMulticastLidBase + g);
    // One destination list for all the flow's sources; each skips itself in it.
    auto dests = std::make_shared<std::vector<UdDestination>>();
    std::vector<std::size_t> index_of(topo.nodes.size(), UdTrafficGenerator::kNoSkip);  // node -> its place in dests
    if (group_lid) dests->push_back(UdDestination{*group_lid, kMulticastQpn});
    else for (std::size_t d : hca_nodes) {
      if (w.destination != "random" && topo.nodes[d].name != w.destination) continue;
      index_of[d] = dests->size();
      dests->push_back(UdDestination{fabric.hca(d)->lid(1), qpn[d]});
    }
    for (std::size_t src : sources) {
      const std::size_t skip = index_of[src];
      if (dests->size() - (skip == UdTrafficGenerator::kNoSkip ? 0 : 1) == 0) continue;
      Hca& h = *fabric.hca(src);
      // Flow 0 draws from stream `src`; each further flow from its own streams.
      auto g = std::make_unique<UdTrafficGenerator>(h, qpn[src], kWorkloadQKey, w, dests, skip,
                                                    RngStream(sc.seed, src + f * 0x100000001ull), measure_end,
                                                    measure_begin, measure_end, static_cast<std::uint16_t>(f));
      g->start(start);
      flow_generators[f].push_back(g.get());
      generators.push_back(std::move(g));
    }
  }

  std::unique_ptr<TimeSeriesSampler> sampler;
  std::vector<PlotPanel> panels;
  if (sc.outputs.time_series.interval > 0)
    sampler = time_series_sampler(sc, fabric, flow_stats, flow_generators, verbs_flows, classes, start, end_limit, panels);

  const auto traffic_wall_start = std::chrono::steady_clock::now();
  const double cpu_start = thread_cpu_seconds();
  {
    ProgressMeter meter(start, end_limit, &CalendarProcess::published_now);  // the bring-up had its own
    // run_for counts from the kernel's clock, which may lag the last action after a pause. A stop
    // (Ctrl-C) during the bring-up already ended the simulation: SystemC cannot start again.
    if (!CalendarProcess::stop_requested()) CalendarProcess::run_for(end_limit - sc_core::sc_time_stamp().value());
  }
  const bool partial = CalendarProcess::stop_requested();
  const double simulate_wall =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - traffic_wall_start).count();
  const double simulate_cpu = thread_cpu_seconds() - cpu_start;
  ScheduledModule::rethrow_failure();
  const Time end = ScheduledModule::now();
  fabric.finish();
  fabric.check_invariants();
  if (waves) waves->close();

  const PacketLedger& L = fabric.ledger();
  nlohmann::json j;
  j["ibfsim_version"] = IBFSIM_VERSION_STRING;
  // Stopped early (Ctrl-C): every figure covers the simulated time up to phases.end_ns only.
  j["partial"] = partial;
  j["scenario"] = sc.file;
  j["topology"] = {{"file", sc.topology_file},
                   {"hcas", hca_nodes.size()},
                   {"switches", topo.switches().size()},
                   {"cables", topo.cables.size()}};
  j["seed"] = sc.seed;
  j["phases"] = {{"start_ns", ns(static_cast<double>(start))},
                 {"warmup_ns", ns(static_cast<double>(sc.phases.warmup))},
                 {"measure_ns", ns(static_cast<double>(sc.phases.measure))},
                 {"drain_limit_ns", ns(static_cast<double>(sc.phases.drain))},
                 {"end_ns", ns(static_cast<double>(end))},
                 // null: stopped (Ctrl-C) before the subnet manager had brought the fabric up
                 {"fabric_up_ns", in_band && !fabric.subnet_manager()->configured()
                                      ? nlohmann::json(nullptr)
                                      : nlohmann::json(ns(static_cast<double>(fabric_up)))},
                 {"drained", L.created_count() == L.delivered_count() + L.dropped_total() + L.replicated_count()}};
  nlohmann::json dropped = nlohmann::json::object();
  for (int r = 0; r < static_cast<int>(DropReason::kCount); ++r)
    dropped[drop_reason_name(static_cast<DropReason>(r))] = L.dropped_count(static_cast<DropReason>(r));
  nlohmann::json mgmt_dropped = nlohmann::json::object();
  for (int r = 0; r < static_cast<int>(DropReason::kCount); ++r)
    if (const std::uint64_t c = L.management_dropped_count(static_cast<DropReason>(r)))
      mgmt_dropped[drop_reason_name(static_cast<DropReason>(r))] = c;
  j["management_packets"] = {{"created", L.management_created_count()},
                             {"delivered", L.management_delivered_count()},
                             {"dropped", mgmt_dropped}};
  if (SubnetManager* sm = fabric.subnet_manager()) {
    const SubnetManagerConfig& c = sm->config();
    nlohmann::json sweeps = nlohmann::json::array();
    for (const SweepRecord& r : sm->sweeps())
      sweeps.push_back({{"trigger", r.trigger},
                        {"started_ns", ns(static_cast<double>(r.started))},
                        {"done_ns", r.done ? nlohmann::json(ns(static_cast<double>(r.done))) : nlohmann::json(nullptr)},
                        {"smps", r.smps_sent},
                        {"requests", r.requests},
                        {"retries", r.retries},
                        {"errors", r.errors},
                        {"lft_blocks", r.lft_blocks},
                        {"nodes", r.nodes},
                        {"switches", r.switches},
                        {"links", r.links}});
    const SweepRecord& first = sm->sweeps().front();
    j["subnet_manager"] = {{"mode", "in_band"},
                           {"host", sm_host},
                           {"port", sm->port()},
                           {"routing", routing_engine_name(c.sweep.routing.engine)},
                           {"lmc", c.sweep.lmc},
                           {"bring_up_ns", ns(static_cast<double>(first.done))},
                           {"bring_up_smps", first.smps_sent},
                           {"smps_sent", sm->smps_sent()},
                           {"traps_received", sm->traps_received()},
                           {"sweeps", sweeps},
                           {"notes", sm->sweep().notes()}};
  } else {
    j["subnet_manager"] = {{"mode", "static"}};
  }
  j["packets"] = {{"created", L.created_count()},
                  {"replicated", L.replicated_count()},
                  {"injected", L.injected_count()},
                  {"delivered", L.delivered_count()},
                  {"dropped", dropped},
                  {"dropped_total", L.dropped_total()},
                  {"queued_at_sources_at_end", fabric.queued_at_sources()},
                  {"in_network_at_end", fabric.pool().live() - fabric.queued_at_sources()}};
  j["latency"] = latency_json(all_stats.latency());
  j["network_latency"] = latency_json(all_stats.network_latency());
  std::uint64_t offered_total = 0;
  nlohmann::json flows = nlohmann::json::array();
  nlohmann::json generator_flows = nlohmann::json::array();
  for (std::size_t f = 0; f < sc.flows.size(); ++f) {
    const WorkloadSpec& w = sc.flows[f];
    std::uint64_t offered = 0;
    for (const auto* g : flow_generators[f]) offered += g->measured_posted() * w.message_size;
    offered_total += offered;
    generator_flows.push_back({{"name", w.name},
                     {"transport", "ud_send"},
                     {"sl", w.sl},
                     {"message_size_bytes", w.message_size},
                     {"load", w.load},
                     {"arrival", w.arrival == Arrival::kPoisson ? "poisson" : "constant"},
                     {"destination", w.destination},
                     {"sources", flow_generators[f].size()},
                     {"latency", latency_json(flow_stats[f].latency())},
                     {"network_latency", latency_json(flow_stats[f].network_latency())},
                     {"throughput", throughput_json(offered, flow_stats[f], sc.phases.measure)}});
  }
  // Every flow in the order of `workload:`.
  for (const auto& [kind, k] : sc.workload_order) {
    if (kind == Scenario::EntryKind::kVerbs) flows.push_back(verbs_flows[k]->results());
    else if (kind == Scenario::EntryKind::kClass) flows.push_back(classes[k]->results());
    else flows.push_back(generator_flows[k]);
  }
  j["flows"] = flows;
  if (!verbs_flows.empty()) {
    // The HCA model each HCA ran with (scenario `hca_model:` over HcaConfig's defaults).
    nlohmann::json hm = nlohmann::json::array();
    for (std::size_t n : hca_nodes) {
      const HcaConfig& c = models[n];
      hm.push_back({{"hca", topo.nodes[n].name},
                    {"doorbell_to_wire_ns", ns(static_cast<double>(c.doorbell_to_wire))},
                    {"wire_to_completion_ns", ns(static_cast<double>(c.wire_to_completion))},
                    {"pcie_gen", c.host.pcie_gen},
                    {"pcie_width", c.host.pcie_width},
                    {"pcie_max_payload", c.host.max_payload},
                    {"pcie_unlimited", c.host.unlimited},
                    {"host_interface_gbytes_per_s", c.host.unlimited ? 0.0 : host_interface_bytes_per_second(c.host) / 1e9},
                    {"p_keys", c.p_keys}});
    }
    j["hca_model"] = hm;
  }
  j["throughput"] = throughput_json(offered_total, all_stats, sc.phases.measure);
  j["simulation"] = {{"actions", fabric.events_run()},
                     {"packet_hops", fabric.packet_hops()},
                     {"bring_up_actions", bring_up_actions},
                     {"bring_up_packet_hops", bring_up_hops}};
  PortTables tables = port_tables(fabric);
  const StudyFigures study =
      study_figures(sc, flow_generators, flow_stats, classes, observer, fabric, end, partial ? kTimeNever : end_limit);
  add_study_results(j, study);
  add_port_window(tables, port_window.get(), fabric);
  j["ports"] = tables.json;
  nlohmann::json links = nlohmann::json::array();
  for (std::size_t k = 0; k < topo.cables.size(); ++k) {
    const TopoCable& c = topo.cables[k];
    const TrainingResult& t = fabric.training(k);
    nlohmann::json lj = {{"a", topo.nodes[c.node_a].name + "/" + std::to_string(c.port_a)},
                         {"b", topo.nodes[c.node_b].name + "/" + std::to_string(c.port_b)},
                         {"rate", c.rate.name()},
                         {"trained", t.up ? LinkRate{t.speed, t.lanes}.name() : "down"},
                         {"lane_reversed", t.lane_reversed},
                         {"training_ns", ns(static_cast<double>(t.duration))},
                         {"phy_mode", fabric.port(c.node_a, c.port_a).bit_exact() ? "bit_exact" : "timing"}};
    // When training ended and the ports left Down (Active without the SM, Init with it), and when
    // both ends were Active: after the first training, then after each fault's retrain.
    const std::vector<Time>& ups = fabric.link_up_times(k);
    lj["up_ns"] = ups.empty() ? nlohmann::json(nullptr) : nlohmann::json(ns(static_cast<double>(ups.front())));
    const auto& act_a = fabric.port(c.node_a, c.port_a).active_times();
    const auto& act_b = fabric.port(c.node_b, c.port_b).active_times();
    std::vector<Time> active;
    for (std::size_t i = 0; i < act_a.size() && i < act_b.size(); ++i) active.push_back(std::max(act_a[i], act_b[i]));
    lj["active_ns"] = active.empty() ? nlohmann::json(nullptr) : nlohmann::json(ns(static_cast<double>(active.front())));
    if (!fabric.link_down_times(k).empty()) {
      nlohmann::json downs = nlohmann::json::array(), reups = nlohmann::json::array(), react = nlohmann::json::array();
      for (Time d : fabric.link_down_times(k)) downs.push_back(ns(static_cast<double>(d)));
      for (std::size_t i = 1; i < ups.size(); ++i) reups.push_back(ns(static_cast<double>(ups[i])));
      for (std::size_t i = 1; i < active.size(); ++i) react.push_back(ns(static_cast<double>(active[i])));
      lj["down_ns"] = downs;
      lj["retrained_up_ns"] = reups;
      lj["retrained_active_ns"] = react;
    }
    if (fabric.port(c.node_a, c.port_a).bit_exact()) {
      const LinkPort::PhyTotals a = fabric.port(c.node_a, c.port_a).phy_totals();
      const LinkPort::PhyTotals b = fabric.port(c.node_b, c.port_b).phy_totals();
      lj["bits_flipped"] = a.bits_flipped + b.bits_flipped;
      lj["symbol_errors"] = a.rx.symbol_errors() + b.rx.symbol_errors();
      lj["bad_frames"] = a.rx.bad_frames + b.rx.bad_frames;
      lj["skips"] = a.skips + b.skips;  // SKIP ordered sets the PHYs sent, both directions
    }
    links.push_back(lj);
  }
  j["links"] = links;
  // Faults: when each happened and, with the SM, when the sweep it caused (trap 128) had the fabric
  // configured again; per destination host, the gap in its deliveries around the fault.
  nlohmann::json fault_list = nlohmann::json::array();
  for (std::size_t i = 0; i < faults.size(); ++i) {
    const LinkFault& f = faults[i];
    nlohmann::json fj = {{"link", topo.nodes[f.node].name + "/" + std::to_string(f.port)},
                         {"state", f.up ? "up" : "down"},
                         {"at_ns", ns(static_cast<double>(f.at))}};
    if (SubnetManager* sm = fabric.subnet_manager()) {
      fj["resweep_done_ns"] = nullptr;
      for (const SweepRecord& rec : sm->sweeps())
        if (rec.started >= f.at && rec.done) {
          fj["resweep_done_ns"] = ns(static_cast<double>(rec.done));
          fj["outage_ns"] = ns(static_cast<double>(rec.done - f.at));
          break;
        }
    }
    nlohmann::json dests = nlohmann::json::array();
    for (std::size_t n : hca_nodes) {
      const Time before = watches[i].last_before[n], after = watches[i].first_after[n];
      if (before == kTimeNever && after == kTimeNever) continue;
      nlohmann::json d = {{"node", topo.nodes[n].name}};
      d["last_delivery_before_ns"] = before == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(ns(static_cast<double>(before)));
      d["first_delivery_after_ns"] = after == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(ns(static_cast<double>(after)));
      if (before != kTimeNever && after != kTimeNever) d["gap_ns"] = ns(static_cast<double>(after - before));
      dests.push_back(d);
    }
    fj["destinations"] = dests;
    fault_list.push_back(fj);
  }
  j["faults"] = fault_list;
  if (sc.congestion_control.enabled) j["congestion_control"] = congestion_control_json(sc, fabric);

  write_json_atomically((dir / "results.json").string(), j);
  write_file_atomically((dir / "ports.csv").string(), tables.ports_csv);
  write_file_atomically((dir / "port_vls.csv").string(), tables.vls_csv);
  write_file_atomically((dir / "discards.csv").string(), tables.discards_csv);
  if (sc.outputs.packet_log) write_file_atomically((dir / "packets.csv").string(), packet_log.csv());
  if (port_window) {
    write_file_atomically((dir / "port_utilization.csv").string(), tables.window_ports_csv);
    write_file_atomically((dir / "credit_stall.csv").string(), tables.window_vls_csv);
  }
  write_file_atomically((dir / "classes.csv").string(), classes_csv(classes, study));
  bool any_collective = false;
  for (const auto& c : classes) any_collective = any_collective || c->spec().collective();
  if (any_collective) {
    std::string fct = "class,iteration,start_ns,end_ns,fct_ns\n";
    for (const auto& c : classes) fct += c->fct_csv_rows();
    write_file_atomically((dir / "fct.csv").string(), fct);
  }
  std::string plot_note;
  if (sampler) {
    const std::string csv = (dir / "time_series.csv").string();
    write_file_atomically(csv, sampler->csv());
    plot_note = render_time_series(std::filesystem::absolute(csv).string(), panels, sc.file,
                                   std::filesystem::absolute(dir / "time_series").string(),
                                   sc.outputs.time_series.png, sc.outputs.time_series.svg);
  }

  RunResult r;
  r.results = j;
  r.bring_up_wall_seconds = bring_up_wall;
  r.bring_up_cpu_seconds = bring_up_cpu;
  r.simulate_wall_seconds = simulate_wall;
  r.partial = partial;
  r.simulate_cpu_seconds = simulate_cpu;
  const auto& lat = all_stats.latency();
  std::string speeds;
  if (!topo.cables.empty()) speeds = topo.cables.front().rate.name();
  std::string up_line;
  const bool never_up = in_band && !fabric.subnet_manager()->configured();
  if (never_up)
    up_line = fmt::format("fabric never up: interrupted during the subnet manager's bring-up at {} ({} SMPs sent)\n",
                          format_duration(fabric_up), fabric.subnet_manager()->smps_sent());
  else if (SubnetManager* sm = fabric.subnet_manager())
    up_line = fmt::format("fabric up: {} (subnet manager on {}: {} SMPs, {} routing)\n", format_duration(fabric_up), sm_host,
                          sm->sweeps().front().smps_sent, routing_engine_name(sm->config().sweep.routing.engine));
  r.summary = fmt::format(
      "fabric: {} HCAs, {} switches, {} cables ({})\n{}"
      "simulated: {}{}, traffic from {}\n"
      "packets: {} created, {} delivered, {} dropped\n",
      hca_nodes.size(), topo.switches().size(), topo.cables.size(), speeds, up_line, format_duration(end),
      never_up                          ? " (no traffic)"
      : j["phases"]["drained"].get<bool>() ? " (all traffic drained)"
                                           : " (drain limit reached, traffic still in flight)",
      never_up          ? std::string("nowhere")
      : sc.phases.start ? format_duration(start)
                        : format_duration(start) + (in_band ? " (fabric up)" : " (links trained)"),
      L.created_count(), L.delivered_count(), L.dropped_total());
  if (lat.count() > 0) {
    r.summary += fmt::format("latency ({} measured packets): mean {}, p99 {}, max {}\n", lat.count(),
                             format_duration(static_cast<Time>(lat.mean_fs() + 0.5)),
                             format_duration(lat.percentile(99)), format_duration(lat.max()));
  }
  if (!sc.flows.empty())
    r.summary += fmt::format("throughput: offered {:.2f} Gb/s, accepted {:.2f} Gb/s (payload)\n",
                             j["throughput"]["offered_payload_gbps"].get<double>(),
                             j["throughput"]["accepted_payload_gbps"].get<double>());
  if (sc.flows.size() > 1) {
    for (std::size_t f = 0; f < sc.flows.size(); ++f) {
      const auto& fl = flow_stats[f].latency();
      r.summary += fmt::format("  flow {} (SL {}): {} packets, mean latency {}, accepted {:.2f} Gb/s\n",
                               sc.flows[f].name, sc.flows[f].sl, fl.count(),
                               fl.count() ? format_duration(static_cast<Time>(fl.mean_fs() + 0.5)) : "-",
                               generator_flows[f]["throughput"]["accepted_payload_gbps"].get<double>());
    }
  }
  if (!classes.empty()) {
    r.summary += "traffic classes:\n";
    for (const auto& c : classes) r.summary += c->summary();
  }
  if (study.load_driven)
    r.summary += fmt::format("load: offered {:.4f}, accepted {:.4f} of the injection links{}\n", study.offered_load,
                             study.accepted_load,
                             study.saturated ? fmt::format(" -- SATURATED: {}", study.saturation_reason) : "");
  if (!verbs_flows.empty()) {
    r.summary += "verbs flows:\n";
    for (const auto& f : verbs_flows) r.summary += f->summary();
  }
  if (partial)
    r.summary += fmt::format("INTERRUPTED at {} simulated: results so far, marked partial\n", format_duration(end));
  if (sc.congestion_control.enabled) {
    const auto& t = j["congestion_control"]["totals"];
    r.summary += fmt::format("congestion control: {} FECN marked, {} BECNs on responses, {} CNPs sent, {} BECNs taken\n",
                             t["fecn_marked"].get<std::uint64_t>(), t["becn_on_response"].get<std::uint64_t>(),
                             t["cnp_sent"].get<std::uint64_t>(),
                             t["becn_received"].get<std::uint64_t>() + t["cnp_received"].get<std::uint64_t>());
  }
  if (sampler) {
    r.summary += fmt::format("time series: {} samples in {}\n", sampler->rows(), (dir / "time_series.csv").string());
    if (!plot_note.empty()) r.summary += "time series plot not made: " + plot_note + "\n";
  }
  r.summary += fmt::format("results: {}\n", (dir / "results.json").string());
  return r;
}

}  // namespace ibfsim
