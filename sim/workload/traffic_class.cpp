// A traffic class's state and setup (traffic_class.h): its hosts, which (source, destination)
// pairs can carry messages, and the order setup runs its steps in.
#include "sim/workload/traffic_class.h"

#include <algorithm>

#include "sim/workload/message_packets.h"
#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

TrafficClass::TrafficClass(const TrafficClassSpec& spec, std::size_t index, Fabric& fabric, std::uint64_t seed,
                           ClassWindow window, std::vector<Time> completion_delay, VerbsFlowOwner& owner)
    : spec_(spec), index_(index), fabric_(fabric), seed_(seed), window_(window),
      completion_delay_(std::move(completion_delay)), owner_(owner),
      pattern_(spec.pattern, spec.hosts.size(), RngStream(seed, class_stream_id(index, 0xFFFFFF, 3))) {}

TrafficClass::~TrafficClass() = default;

double TrafficClass::wire_fs(const LinkPort& port, std::uint64_t bytes) const {
  const MessagePackets m = message_packets(spec_.transport, spec_.verb, bytes, spec_.mtu);
  std::uint64_t edges = port.symbols_for(m.first_bytes);
  if (m.count > 1) edges += port.symbols_for(m.middle_bytes) * (m.count - 2) + port.symbols_for(m.last_bytes);
  return static_cast<double>(edges) * port.clock().period_fs();
}

std::vector<std::uint64_t> TrafficClass::delivery_keys() const {
  std::vector<std::uint64_t> keys;
  for (const auto& h : hosts_) {
    if (h->ud_qpn) keys.push_back(delivery_key(h->node, h->ud_qpn));
    if (h->ib0) keys.push_back(delivery_key(h->node, 0xFFFFFF));  // the broadcast group (ARP requests)
  }
  for (const auto& [k, e] : by_target_qp_) keys.push_back(k);
  for (const auto& [k, e] : by_requester_qp_) keys.push_back(k);
  std::sort(keys.begin(), keys.end());
  keys.erase(std::unique(keys.begin(), keys.end()), keys.end());
  return keys;
}

TrafficClass::Endpoint* TrafficClass::endpoint_for(std::size_t src, std::size_t dst) {
  Host& h = *hosts_[src];
  if (h.ud) return h.ud.get();
  return h.to[dst];
}

void TrafficClass::setup() {
  make_hosts();
  const std::vector<std::vector<std::size_t>> dests = reachable_destinations();
  setup_endpoints(dests);
  // Traffic.
  if (spec_.collective()) return start_collective();
  start_sources(dests);
}

void TrafficClass::make_hosts() {
  const std::size_t n = spec_.hosts.size();
  for (std::size_t i = 0; i < n; ++i) {
    auto h = std::make_unique<Host>(seed_, index_, i, spec_);
    h->node = spec_.hosts[i];
    h->hca = fabric_.hca(h->node);
    if (spec_.verbs() && h->node < completion_delay_.size()) h->react = completion_delay_[h->node];
    host_of_node_[h->node] = i;
    h->to.assign(n, nullptr);
    hosts_.push_back(std::move(h));
  }
}

// Which (source, destination) pairs can carry messages.
std::vector<std::vector<std::size_t>> TrafficClass::reachable_destinations() {
  const std::size_t n = spec_.hosts.size();
  std::vector<std::vector<std::size_t>> dests(n);
  for (std::size_t i = 0; i < n; ++i) {
    if (spec_.pattern.kind == PatternKind::kRingAllreduce) dests[i] = {(i + 1) % n};
    else if (spec_.pattern.kind == PatternKind::kAllToAllRounds) dests[i] = pattern_.reachable(i);
    else if (spec_.sending[i]) {
      if (pattern_.sends(i)) dests[i] = pattern_.reachable(i);
      else ++silent_sources_;
    }
  }
  return dests;
}

bool TrafficClass::done(Time now) const {
  if (spec_.collective()) return iteration_ >= spec_.iterations;
  if (now < window_.measure_end) return false;
  if (!tcp_done()) return false;
  for (const auto& h : hosts_)
    if (h->ud && (h->ud->outstanding || !h->ud->backlog.empty() || !h->unbuilt.empty())) return false;
  for (const auto& e : endpoints_)
    if (e->outstanding || !e->backlog.empty()) return false;
  return true;
}

std::uint64_t TrafficClass::messages_waiting_at_sources() const {
  std::uint64_t w = settled_waiting_ + tcp_waiting();
  for (const auto& h : hosts_)
    if (h->ud) w += h->ud->backlog.size() + h->unbuilt.size();
  for (const auto& e : endpoints_) w += e->backlog.size();
  return w;
}

}  // namespace ibfsim
