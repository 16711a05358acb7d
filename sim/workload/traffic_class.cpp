// A traffic class's state and setup (traffic_class.h): its hosts, which (source, destination)
// pairs can carry messages, and the order setup runs its steps in.
#include "sim/workload/traffic_class.h"

#include <algorithm>

#include "sim/workload/message_packets.h"
#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

TrafficClass::TrafficClass(const TrafficClassSpec& spec, std::size_t index, HostFabric& fabric, std::uint64_t seed,
                           ClassWindow window, std::vector<Time> completion_delay, VerbsFlowOwner& owner)
    : spec_(spec), index_(index), fabric_(fabric), seed_(seed), window_(window),
      completion_delay_(std::move(completion_delay)), owner_(owner),
      pattern_(spec.pattern, spec.hosts.size(), RngStream(seed, class_stream_id(index, 0xFFFFFF, 3))) {}

TrafficClass::~TrafficClass() = default;

double TrafficClass::wire_fs(std::size_t node, std::uint64_t bytes, bool connected) const {
  if (connected) {
    // Connected mode: a UDP datagram is one RC SEND; TCP data go in segments of the MSS.
    if (spec_.transport == ClassTransport::kIpoibUdp)
      return ipoib_cm_wire_fs(node, static_cast<std::uint32_t>(bytes) + kIpoibUdpOverhead);
    const std::uint64_t full = bytes / spec_.tcp.mss, rest = bytes % spec_.tcp.mss;
    double fs = static_cast<double>(full) * ipoib_cm_wire_fs(node, spec_.tcp.mss + kIpoibTcpOverhead);
    if (rest > 0) fs += ipoib_cm_wire_fs(node, static_cast<std::uint32_t>(rest) + kIpoibTcpOverhead);
    return fs;
  }
  const MessagePackets m = message_packets(spec_.transport, spec_.verb, bytes, spec_.mtu);
  return packets_wire_fs(node, m);
}

double TrafficClass::packets_wire_fs(std::size_t node, const MessagePackets& m) const {
  std::uint64_t edges = fabric_.ib_sized_wire_edges(node, m.first_bytes);
  if (m.count > 1)
    edges += fabric_.ib_sized_wire_edges(node, m.middle_bytes) * (m.count - 2) +
             fabric_.ib_sized_wire_edges(node, m.last_bytes);
  return static_cast<double>(edges) * fabric_.wire_edge_fs(node);
}

double TrafficClass::ipoib_cm_wire_fs(std::size_t node, std::uint32_t bytes, std::uint32_t* packets) const {
  const MessagePackets m = message_packets(ClassTransport::kRc, ClassVerb::kSend, bytes, spec_.mtu);
  if (packets) *packets = m.count;
  return packets_wire_fs(node, m);
}

std::size_t TrafficClass::host_of_address(const std::array<std::uint8_t, 4>& ip) const {
  const auto& a = spec_.ipoib_addresses;
  const auto it = std::find(a.begin(), a.end(), ip);
  return it == a.end() ? kClassNoHost : static_cast<std::size_t>(it - a.begin());
}

std::vector<std::uint64_t> TrafficClass::delivery_keys() const {
  std::vector<std::uint64_t> keys;
  for (const auto& h : hosts_) {
    if (h->ud_qpn) keys.push_back(delivery_key(h->node, h->ud_qpn));
    if (h->ib0) keys.push_back(delivery_key(h->node, 0xFFFFFF));  // the broadcast group (ARP requests)
    if (h->ib0 && h->ib0->connected()) keys.push_back(delivery_key(h->node, kOtherQps));  // its RC QPs
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
    for (const auto& [dst, sent] : h->cm_udp_to)
      if (!sent.empty()) return false;
  for (const auto& h : hosts_)
    if (h->ud && (h->ud->outstanding || !h->ud->backlog.empty() || !h->unbuilt.empty())) return false;
  for (const auto& e : endpoints_)
    if (e->outstanding || !e->backlog.empty()) return false;
  return true;
}

std::uint64_t TrafficClass::messages_waiting_at_sources() const {
  if (figures_) return figures_->waiting_at_sources;
  std::uint64_t w = settled_waiting_ + tcp_waiting();
  for (const auto& h : hosts_)
    if (h->ud) w += h->ud->backlog.size() + h->unbuilt.size();
  for (const auto& e : endpoints_) w += e->backlog.size();
  return w;
}

}  // namespace ibfsim
