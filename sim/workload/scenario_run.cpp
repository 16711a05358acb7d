#include "sim/workload/scenario_run.h"

#include <fmt/format.h>

#include <filesystem>
#include <memory>
#include <systemc>

#include "sim/core/error.h"
#include "sim/fabric/fabric.h"
#include "sim/report/atomic_file.h"
#include "sim/report/results_json.h"
#include "sim/workload/packet_log.h"
#include "sim/workload/traffic_stats.h"
#include "sim/workload/ud_traffic_generator.h"

namespace ibfsim {

namespace {

constexpr std::uint32_t kWorkloadQKey = 0x11111111;

// Forwards deliveries to the statistics and stops the run once the drain phase has begun and
// every packet created has been delivered or dropped.
class RunObserver : public DeliveryObserver {
 public:
  RunObserver(TrafficStats& stats, const PacketLedger& ledger, Time generation_end)
      : stats_(stats), ledger_(ledger), generation_end_(generation_end) {}
  void on_delivered(Hca& hca, const Packet& p, Time tail) override {
    stats_.on_delivered(hca, p, tail);
    if (tail >= generation_end_ && ledger_.created_count() == ledger_.delivered_count() + ledger_.dropped_total())
      sc_core::sc_stop();
  }

 private:
  TrafficStats& stats_;
  const PacketLedger& ledger_;
  Time generation_end_;
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

std::string ports_csv(Fabric& fabric) {
  std::string out =
      "node,port,peer,rate,tx_packets,tx_bytes,rx_packets,rx_bytes,tx_flow_control,rx_flow_control,"
      "busy_fraction,rx_buffer_blocks,rx_buffer_max_blocks\n";
  const Topology& t = fabric.topology();
  const Time end = ScheduledModule::now();
  for (std::size_t n = 0; n < t.nodes.size(); ++n) {
    for (unsigned p = 1; p <= t.nodes[n].num_ports; ++p) {
      LinkPort& lp = fabric.port(n, p);
      if (!lp.connected()) continue;
      const LinkPortStats& s = lp.stats();
      fmt::format_to(std::back_inserter(out), "{},{},{},{},{},{},{},{},{},{},{:.6f},{},{}\n", t.nodes[n].name, p,
                     lp.peer()->name(), lp.rate().name(), s.tx_packets, s.tx_bytes, s.rx_packets, s.rx_bytes,
                     s.tx_flow_control, s.rx_flow_control,
                     end ? static_cast<double>(s.tx_busy) / static_cast<double>(end) : 0.0,
                     lp.rx_buffer().capacity(), lp.rx_buffer().max_occupied());
    }
  }
  return out;
}

}  // namespace

RunResult run_scenario(const Scenario& sc, const std::string& out_dir) {
  init_time_resolution();
  // sc_stop() at the end of the drain phase is how a run normally ends: no message for it.
  sc_core::sc_report_handler::set_actions(sc_core::SC_INFO, sc_core::SC_DO_NOTHING);
  std::filesystem::create_directories(out_dir);
  const std::filesystem::path dir(out_dir);

  FabricOptions fo;
  fo.carry_payload = sc.outputs.data_check;
  if (sc.outputs.pcap) fo.pcap_path = (dir / "trace.pcap").string();
  fo.pcap_link_packets = sc.outputs.pcap_link_packets;
  Fabric fabric(sc.topology, fo);
  const Topology& topo = fabric.topology();

  const Time measure_begin = sc.phases.warmup;
  const Time measure_end = sc.phases.warmup + sc.phases.measure;
  const Time end_limit = measure_end + sc.phases.drain;

  // Every HCA gets one UD QP (QPN 0x100) with the workload's Q_Key.
  std::vector<std::size_t> hca_nodes = topo.hcas();
  std::vector<Qpn> qpn(topo.nodes.size(), 0);
  for (std::size_t n : hca_nodes) qpn[n] = fabric.hca(n)->create_ud_qp(kWorkloadQKey);

  std::vector<std::size_t> sources;
  if (sc.workload.sources.empty()) sources = hca_nodes;
  else
    for (const auto& name : sc.workload.sources) sources.push_back(*topo.find_node(name));

  TrafficStats stats(measure_begin, measure_end);
  RunObserver observer(stats, fabric.ledger(), measure_end);
  PacketLog packet_log;
  for (std::size_t n : hca_nodes) {
    fabric.hca(n)->set_delivery_observer(&observer);
    if (sc.outputs.packet_log) fabric.hca(n)->set_send_observer(&packet_log);
  }

  // A host never sends to itself: with a fixed destination, that host does not send.
  std::vector<std::unique_ptr<UdTrafficGenerator>> generators;
  for (std::size_t src : sources) {
    std::vector<UdDestination> dests;
    for (std::size_t d : hca_nodes) {
      if (d == src) continue;
      if (sc.workload.destination != "random" && topo.nodes[d].name != sc.workload.destination) continue;
      dests.push_back(UdDestination{fabric.hca(d)->lid(1), qpn[d]});
    }
    if (dests.empty()) continue;
    Hca& h = *fabric.hca(src);
    auto g = std::make_unique<UdTrafficGenerator>(h, qpn[src], kWorkloadQKey, sc.workload, std::move(dests),
                                                  RngStream(sc.seed, src), measure_end, measure_begin, measure_end);
    g->start();
    generators.push_back(std::move(g));
  }

  sc_core::sc_start(to_sc_time(end_limit));
  ScheduledModule::rethrow_failure();
  const Time end = ScheduledModule::now();
  fabric.finish();
  fabric.check_invariants();

  const PacketLedger& L = fabric.ledger();
  nlohmann::json j;
  j["ibfsim_version"] = IBFSIM_VERSION_STRING;
  j["scenario"] = sc.file;
  j["topology"] = {{"file", sc.topology_file},
                   {"hcas", hca_nodes.size()},
                   {"switches", topo.switches().size()},
                   {"cables", topo.cables.size()}};
  j["seed"] = sc.seed;
  j["workload"] = {{"transport", "ud_send"},
                   {"message_size_bytes", sc.workload.message_size},
                   {"load", sc.workload.load},
                   {"arrival", sc.workload.arrival == Arrival::kPoisson ? "poisson" : "constant"},
                   {"destination", sc.workload.destination},
                   {"sources", generators.size()}};
  j["phases"] = {{"warmup_ns", ns(static_cast<double>(sc.phases.warmup))},
                 {"measure_ns", ns(static_cast<double>(sc.phases.measure))},
                 {"drain_limit_ns", ns(static_cast<double>(sc.phases.drain))},
                 {"end_ns", ns(static_cast<double>(end))},
                 {"drained", L.created_count() == L.delivered_count() + L.dropped_total()}};
  nlohmann::json dropped = nlohmann::json::object();
  for (int r = 0; r < static_cast<int>(DropReason::kCount); ++r)
    dropped[drop_reason_name(static_cast<DropReason>(r))] = L.dropped_count(static_cast<DropReason>(r));
  j["packets"] = {{"created", L.created_count()},
                  {"injected", L.injected_count()},
                  {"delivered", L.delivered_count()},
                  {"dropped", dropped},
                  {"dropped_total", L.dropped_total()},
                  {"queued_at_sources_at_end", fabric.queued_at_sources()},
                  {"in_network_at_end", fabric.pool().live() - fabric.queued_at_sources()}};
  j["latency"] = latency_json(stats.latency());
  j["network_latency"] = latency_json(stats.network_latency());
  const double window_s = static_cast<double>(sc.phases.measure) / static_cast<double>(kSec);
  std::uint64_t measured_offered = 0;
  for (const auto& g : generators) measured_offered += g->measured_posted();
  j["throughput"] = {
      {"offered_payload_gbps", static_cast<double>(measured_offered) * sc.workload.message_size * 8 / window_s / 1e9},
      {"accepted_payload_gbps", static_cast<double>(stats.window_payload_bytes()) * 8 / window_s / 1e9},
      {"accepted_packets", stats.window_packets()}};
  j["simulation"] = {{"actions", fabric.actions_run()}, {"packet_hops", fabric.packet_hops()}};

  write_json_atomically((dir / "results.json").string(), j);
  write_file_atomically((dir / "ports.csv").string(), ports_csv(fabric));
  if (sc.outputs.packet_log) write_file_atomically((dir / "packets.csv").string(), packet_log.csv());

  RunResult r;
  r.results = j;
  const auto& lat = stats.latency();
  std::string speeds;
  if (!topo.cables.empty()) speeds = topo.cables.front().rate.name();
  r.summary = fmt::format(
      "fabric: {} HCAs, {} switches, {} cables ({})\n"
      "simulated: {}{}\n"
      "packets: {} created, {} delivered, {} dropped\n",
      hca_nodes.size(), topo.switches().size(), topo.cables.size(), speeds, format_duration(end),
      j["phases"]["drained"].get<bool>() ? " (all traffic drained)" : " (drain limit reached, traffic still in flight)",
      L.created_count(), L.delivered_count(), L.dropped_total());
  if (lat.count() > 0) {
    r.summary += fmt::format("latency ({} measured packets): mean {}, p99 {}, max {}\n", lat.count(),
                             format_duration(static_cast<Time>(lat.mean_fs() + 0.5)),
                             format_duration(lat.percentile(99)), format_duration(lat.max()));
  }
  r.summary += fmt::format("throughput: offered {:.2f} Gb/s, accepted {:.2f} Gb/s (payload)\n",
                           j["throughput"]["offered_payload_gbps"].get<double>(),
                           j["throughput"]["accepted_payload_gbps"].get<double>());
  r.summary += fmt::format("results: {}\n", (dir / "results.json").string());
  return r;
}

}  // namespace ibfsim
