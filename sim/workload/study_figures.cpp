#include "sim/workload/study_figures.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/workload/message_packets.h"

namespace ibfsim {

FlowSourceCounts source_counts(const std::vector<UdTrafficGenerator*>& generators) {
  FlowSourceCounts c;
  for (const auto* g : generators) {
    c.posted += g->measured_posted();
    c.waiting += g->waiting();
  }
  return c;
}

StudyFigures study_figures(const Scenario& sc, const std::vector<std::vector<UdTrafficGenerator*>>& flow_generators,
                           const std::vector<FlowSourceCounts>& sources,
                           const std::vector<TrafficStats>& flow_stats,
                           const std::vector<std::unique_ptr<TrafficClass>>& classes, const RunObserver& observer,
                           HostFabric& fabric, Time end, Time end_limit) {
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
    const double pkt_fs = static_cast<double>(fabric.ib_sized_wire_edges(node, packet_wire_bytes(28, w.message_size))) *
                          fabric.wire_edge_fs(node);
    const std::uint64_t posted = sources.at(f).posted;
    st.waiting_at_sources += sources[f].waiting;  // arrived, never built: their queue stayed full
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
        fabric.packets_alive() - fabric.queued_at_sources(), fabric.queued_at_sources(), st.waiting_at_sources);
  }
  return st;
}

}  // namespace ibfsim
