// A traffic class's figures (traffic_class.h): its entry in results.json, its line of the printed
// summary, its share of the run's totals and, for collectives, its rows of fct.csv.
#include <fmt/format.h>

#include <algorithm>

#include "sim/report/histogram_json.h"
#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

namespace {

double ns(double fs) { return fs / 1e6; }

}  // namespace

void TrafficClass::add_totals(ClassTotals& t) const {
  if (spec_.collective()) return;
  if (figures_) {
    t.offered_wire_fs += figures_->totals.offered_wire_fs;
    t.accepted_wire_fs += figures_->totals.accepted_wire_fs;
    t.offered_payload_bytes += figures_->totals.offered_payload_bytes;
    t.accepted_payload_bytes += figures_->totals.accepted_payload_bytes;
    t.sources += figures_->totals.sources;
    return;
  }
  t.offered_wire_fs += offered_wire_fs_;
  t.accepted_wire_fs += accepted_wire_fs_;
  t.offered_payload_bytes += offered_payload_;
  t.accepted_payload_bytes += accepted_payload_;
  t.sources += spec_.sources() - silent_sources_;
}

// Connected mode: the connections the interfaces opened and accepted, and when.
nlohmann::json TrafficClass::ipoib_connected_results() const {
  IpoibCmStats t;
  Time first = kTimeNever, last = 0;
  for (const auto& h : hosts_) {
    if (!h->ib0->connected_mode()) continue;  // in datagram mode
    const IpoibCmStats& s = h->ib0->connected_mode()->stats();
    t.connections_requested += s.connections_requested;
    t.connections_accepted += s.connections_accepted;
    t.established_active += s.established_active;
    t.established_passive += s.established_passive;
    t.failed += s.failed;
    t.packets_sent += s.packets_sent;
    t.packets_received += s.packets_received;
    t.packets_waited += s.packets_waited;
    t.receive_errors += s.receive_errors;
    first = std::min(first, s.first_requested);
    if (s.last_established != kTimeNever) last = std::max(last, s.last_established);
  }
  auto ns = [](Time x) { return static_cast<double>(x) / 1e6; };
  const bool all = t.established_active == t.connections_requested && t.connections_requested > 0;
  return {{"connections_requested", t.connections_requested},
          {"connections_accepted", t.connections_accepted},
          {"established_active", t.established_active},
          {"established_passive", t.established_passive},
          {"failed", t.failed},
          {"packets_sent", t.packets_sent},
          {"packets_received", t.packets_received},
          {"packets_waited", t.packets_waited},
          {"receive_errors", t.receive_errors},
          {"first_requested_ns", first == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(ns(first))},
          {"all_established_ns", all ? nlohmann::json(ns(last)) : nlohmann::json(nullptr)}};
}

nlohmann::json TrafficClass::results() const {
  if (figures_) return figures_->results;
  nlohmann::json j;
  j["name"] = spec_.name;
  j["kind"] = "traffic_class";
  j["pattern"] = pattern_name(spec_.pattern.kind);
  j["transport"] = class_transport_name(spec_.transport);
  j["verb"] = class_verb_name(spec_.verb);
  j["sl"] = spec_.sl;
  j["mtu"] = spec_.mtu;
  if (spec_.sizes.fixed()) {
    j["message_size_bytes"] = spec_.sizes.largest();
  } else {
    nlohmann::json mix = nlohmann::json::array();
    for (const auto& e : spec_.sizes.entries()) mix.push_back({{"size", e.bytes}, {"weight", e.weight}});
    j["message_size_bytes"] = mix;
  }
  j["hosts"] = spec_.hosts.size();
  const std::size_t senders = spec_.collective() ? spec_.hosts.size() : spec_.sources() - silent_sources_;
  j["sources"] = senders;
  j["silent_sources"] = silent_sources_;
  j["messages"] = {{"offered", offered_messages_},
                   {"delivered", delivered_messages_},
                   {"measured", measured_},
                   {"measured_delivered", measured_delivered_},
                   {"measured_undelivered", measured_ - measured_delivered_},
                   {"waiting_at_sources_at_end", messages_waiting_at_sources()}};
  j["message_latency"] = histogram_json(message_latency_);
  j["packet_latency"] = histogram_json(packet_latency_);
  j["network_latency"] = histogram_json(network_latency_);
  j["error_completions"] = error_completions_;
  if (spec_.ipoib()) {
    IpoibStats t;
    Time joined = 0;
    bool all_joined = true;
    for (const auto& h : hosts_) {
      const IpoibStats& s = h->ib0->stats();
      t.arp_requests_sent += s.arp_requests_sent;
      t.arp_replies_sent += s.arp_replies_sent;
      t.arp_retries += s.arp_retries;
      t.arp_requests_received += s.arp_requests_received;
      t.arp_replies_received += s.arp_replies_received;
      t.udp_sent += s.udp_sent;
      t.udp_received += s.udp_received;
      t.udp_too_long += s.udp_too_long;
      t.tcp_sent += s.tcp_sent;
      t.tcp_received += s.tcp_received;
      t.dropped_not_ours += s.dropped_not_ours;
      if (s.joined_at == kTimeNever) all_joined = false;
      else joined = std::max(joined, s.joined_at);
    }
    j["ipoib"] = {{"arp_requests_sent", t.arp_requests_sent},
                  {"arp_replies_sent", t.arp_replies_sent},
                  {"arp_retries", t.arp_retries},
                  {"arp_requests_received", t.arp_requests_received},
                  {"arp_replies_received", t.arp_replies_received},
                  {"udp_datagrams_sent", t.udp_sent},
                  {"udp_datagrams_received", t.udp_received},
                  {"udp_datagrams_too_long", t.udp_too_long},
                  {"tcp_segments_sent", t.tcp_sent},
                  {"tcp_segments_received", t.tcp_received},
                  {"not_for_this_interface", t.dropped_not_ours},
                  {"all_joined", all_joined},
                  {"last_joined_ns", all_joined ? static_cast<double>(joined) / 1e6 : 0.0}};
    // Each interface's mode (ipoib.interfaces): all one, or `mixed` with the connected ones named.
    const auto& ch = spec_.ipoib_connected_hosts;
    const std::size_t n_connected = static_cast<std::size_t>(std::count(ch.begin(), ch.end(), true));
    j["ipoib"]["mode"] = n_connected == 0 ? "datagram" : n_connected == ch.size() ? "connected" : "mixed";
    std::uint32_t mtu = 0;
    for (const auto& h : hosts_) mtu = std::max(mtu, h->ib0->mtu());
    j["ipoib"]["mtu"] = mtu;  // the largest of its interfaces'
    if (n_connected != 0 && n_connected != ch.size()) {
      nlohmann::json names = nlohmann::json::array();
      for (std::size_t i = 0; i < hosts_.size(); ++i)
        if (ch[i]) names.push_back(fabric_.topology().nodes[hosts_[i]->node].name);
      j["ipoib"]["connected_interfaces"] = names;
    }
    if (spec_.ipoib_connected_mtu != 0) j["ipoib"]["connected"] = ipoib_connected_results();
  }
  if (!spec_.collective()) {
    j["load"] = spec_.load;
    j["arrival"] = arrival_name(spec_.arrival.kind);
    if (spec_.arrival.kind == ArrivalKind::kOnOff) {
      j["burst_length"] = spec_.arrival.burst_length;
      j["peak_load"] = spec_.arrival.peak_load;
    }
    const double window = static_cast<double>(window_.measure_end - window_.measure_begin);
    const double capacity = window * static_cast<double>(senders);
    const double window_s = window / 1e15;
    j["offered"] = {{"load", capacity > 0 ? offered_wire_fs_ / capacity : 0.0},
                    {"payload_gbps", static_cast<double>(offered_payload_) * 8 / window_s / 1e9},
                    {"payload_bytes", offered_payload_}};
    j["accepted"] = {{"load", capacity > 0 ? accepted_wire_fs_ / capacity : 0.0},
                     {"payload_gbps", static_cast<double>(accepted_payload_) * 8 / window_s / 1e9},
                     {"payload_bytes", accepted_payload_},
                     {"packets", accepted_packets_}};
    if (spec_.transport == ClassTransport::kIpoibTcp) j["tcp"] = tcp_results(window_s, senders);
  } else {
    nlohmann::json c;
    const std::uint64_t buffer = spec_.sizes.largest();
    c["buffer_bytes"] = buffer;
    c["steps"] = steps_;
    c["iterations"] = spec_.iterations;
    c["completed"] = fct_.size();
    nlohmann::json its = nlohmann::json::array();
    LatencyHistogram f;
    for (std::size_t k = 0; k < fct_.size(); ++k) {
      const Time d = fct_[k].second - fct_[k].first;
      f.add(d);
      its.push_back({{"iteration", k},
                     {"start_ns", ns(static_cast<double>(fct_[k].first))},
                     {"end_ns", ns(static_cast<double>(fct_[k].second))},
                     {"fct_ns", ns(static_cast<double>(d))}});
    }
    c["per_iteration"] = its;
    if (f.count() > 0) {
      c["fct_ns"] = {{"min", ns(static_cast<double>(f.min()))},
                     {"mean", ns(f.mean_fs())},
                     {"max", ns(static_cast<double>(f.max()))}};
      // NCCL's figures: algorithm bandwidth = buffer / time; bus bandwidth scales it by what each
      // host must move: 2(n-1)/n for allreduce, (n-1)/n for all-to-all (buffer = n-1 blocks sent).
      const double n = static_cast<double>(hosts_.size());
      const double mean_s = f.mean_fs() / 1e15;
      if (spec_.pattern.kind == PatternKind::kRingAllreduce) {
        c["algorithm_bandwidth_gbps"] = static_cast<double>(buffer) * 8 / mean_s / 1e9;
        c["bus_bandwidth_gbps"] = static_cast<double>(buffer) * 8 / mean_s / 1e9 * 2 * (n - 1) / n;
      } else {
        const double total = static_cast<double>(buffer) * n;  // a host's whole send buffer, own block included
        c["algorithm_bandwidth_gbps"] = total * 8 / mean_s / 1e9;
        c["bus_bandwidth_gbps"] = total * 8 / mean_s / 1e9 * (n - 1) / n;
      }
    }
    j["collective"] = c;
  }
  return j;
}

std::string TrafficClass::summary() const {
  if (figures_) return figures_->summary;
  std::string s = fmt::format("  class {} ({} {} {}, SL {}): ", spec_.name, pattern_name(spec_.pattern.kind),
                              class_transport_name(spec_.transport), class_verb_name(spec_.verb), spec_.sl);
  const nlohmann::json r = results();
  if (spec_.collective()) {
    s += fmt::format("{} of {} iterations", fct_.size(), spec_.iterations);
    if (!fct_.empty())
      s += fmt::format(", completion time mean {:.3f} us, bus bandwidth {:.2f} Gb/s",
                       r["collective"]["fct_ns"]["mean"].get<double>() / 1000,
                       r["collective"]["bus_bandwidth_gbps"].get<double>());
  } else {
    s += fmt::format("offered {:.3f}, accepted {:.3f} of link rate", r["offered"]["load"].get<double>(),
                     r["accepted"]["load"].get<double>());
    if (message_latency_.count())
      s += fmt::format(", message latency mean {:.3f} us, p99 {:.3f} us", message_latency_.mean_fs() / 1e9,
                       static_cast<double>(message_latency_.percentile(99)) / 1e9);
    if (measured_undelivered()) s += fmt::format(", {} measured messages undelivered", measured_undelivered());
  }
  return s + "\n";
}

std::string TrafficClass::fct_csv_rows() const {
  if (figures_) return figures_->fct_rows;
  std::string s;
  for (std::size_t k = 0; k < fct_.size(); ++k)
    s += fmt::format("{},{},{:.6f},{:.6f},{:.6f}\n", spec_.name, k, ns(static_cast<double>(fct_[k].first)),
                     ns(static_cast<double>(fct_[k].second)), ns(static_cast<double>(fct_[k].second - fct_[k].first)));
  return s;
}

}  // namespace ibfsim
