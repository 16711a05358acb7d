// A traffic class over TCP over IPoIB (transport: ipoib_tcp; traffic_class.h): one TCP connection
// (transport/tcp/tcp_connection.h) per (source, destination) the pattern can pick, its client on
// the source's ib0 and its server on the destination's. The client connects once ARP resolved the
// destination; each message the source offers is the application writing its bytes into the
// socket: what the send buffer cannot take waits (a blocking write) and goes in as ACKs free room.
// A message is delivered when the server has received its last byte in order. Each side's timer
// is an event on its own HCA's calendar; segments travel as IPoIB datagrams on the UD QP, or in
// connected mode over the interfaces' RC connections (handed back as their receives complete).
#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

void TrafficClass::setup_tcp(const std::vector<std::vector<std::size_t>>& dests) {
  for (std::size_t i = 0; i < dests.size(); ++i)
    for (std::size_t d : dests[i]) {
      const std::size_t k = tcp_pairs_.size();
      auto t = std::make_unique<TcpPair>();
      t->src = i;
      t->dst = d;
      const auto client_port = static_cast<std::uint16_t>(kTcpClientPortBase + k);
      TcpConfig c = spec_.tcp;
      c.isn = static_cast<std::uint32_t>(k * 0x01000193u);  // apart per connection, same every run
      // Each end advertises its own interface's MTU less 40 (the ends' modes may differ); each
      // sends the smaller of the two, as the MSS option makes it.
      c.mss = hosts_[i]->ib0->mtu() - (kIpoibTcpOverhead - 4);
      t->side[0] = std::make_unique<TcpConnection>(c, client_port, kIpoibClassPort);
      c.isn = ~c.isn;
      c.mss = hosts_[d]->ib0->mtu() - (kIpoibTcpOverhead - 4);
      t->side[1] = std::make_unique<TcpConnection>(c, kIpoibClassPort, client_port);
      t->side[1]->listen();
      hosts_[i]->tcp_to[d] = k;
      hosts_[d]->tcp_from[i] = k;
      tcp_pairs_.push_back(std::move(t));
    }
}

void TrafficClass::tcp_resolved(std::size_t host) {
  Host& h = *hosts_[host];
  for (const auto& [dst, k] : h.tcp_to) {
    TcpPair& t = *tcp_pairs_[k];
    if (!t.connected && h.ib0->resolve(spec_.ipoib_addresses[dst]) != nullptr) {
      t.connected = true;
      t.side[0]->connect(h.hca->now());
    }
    tcp_flush(k, 0);
  }
  for (const auto& [src, k] : h.tcp_from) tcp_flush(k, 1);
}

void TrafficClass::tcp_offer(std::size_t src, std::size_t dst, std::uint32_t slot) {
  const std::size_t k = hosts_[src]->tcp_to.at(dst);
  TcpPair& t = *tcp_pairs_[k];
  t.written += messages_[slot].bytes;
  t.app_pending += messages_[slot].bytes;
  t.messages.emplace_back(t.written, slot);
  tcp_write(k);
}

void TrafficClass::tcp_write(std::size_t k) {
  TcpPair& t = *tcp_pairs_[k];
  TcpConnection& c = *t.side[0];
  if (t.app_pending > 0 && c.established()) t.app_pending -= c.write(hosts_[t.src]->hca->now(), t.app_pending);
  tcp_flush(k, 0);
}

void TrafficClass::tcp_flush(std::size_t k, int side) {
  TcpPair& t = *tcp_pairs_[k];
  TcpConnection& c = *t.side[side];
  Host& h = *hosts_[side == 0 ? t.src : t.dst];
  const std::size_t peer = side == 0 ? t.dst : t.src;
  const Time now = h.hca->now();
  for (TcpSegment& s : c.take_output()) t.pending[side].push_back(std::move(s));
  if (!t.pending[side].empty()) {
    if (const IpoibInterface::Neighbour* n = h.ib0->resolve(spec_.ipoib_addresses[peer])) {
      for (const TcpSegment& s : t.pending[side]) {
        IpoibTcpSegment x;
        x.dst_ip = spec_.ipoib_addresses[peer];
        x.tcp = s.header;
        x.data_bytes = s.data_bytes;
        const bool data = s.data_bytes > 0;
        const bool measured = data && now >= window_.measure_begin && now < window_.measure_end;
        h.ib0->send_tcp(*n, x, measured, static_cast<std::uint16_t>(index_), now);
      }
      t.pending[side].clear();
    }
  }
  const Time next = c.next_timer();
  if (next < t.timer_at[side]) {
    t.timer_at[side] = next;
    h.hca->schedule<&TrafficClass::tcp_timer>(next, this, k * 2 + static_cast<std::size_t>(side));
  }
}

void TrafficClass::tcp_timer(std::size_t key) {
  const std::size_t k = key / 2;
  const int side = static_cast<int>(key % 2);
  TcpPair& t = *tcp_pairs_[k];
  const Time now = hosts_[side == 0 ? t.src : t.dst]->hca->now();
  if (t.timer_at[side] == now) t.timer_at[side] = kTimeNever;
  t.side[side]->on_timer(now);  // nothing, if this was a deadline since moved later
  tcp_flush(k, side);
}

void TrafficClass::tcp_delivered(std::size_t host, const Packet& p, const IpoibTcpSegment& s, Time tail) {
  const auto from = host_of_node_.find(p.src_node);
  if (from == host_of_node_.end()) return;
  tcp_segment_in(host, from->second, s, tail, &p);
}

void TrafficClass::tcp_segment_in(std::size_t host, std::size_t from, const IpoibTcpSegment& s, Time tail,
                                  const Packet* p) {
  const TcpSegment seg{s.tcp, s.data_bytes};
  if (s.tcp.dst_port != kIpoibClassPort) {  // to a client: ACKs
    const auto it = hosts_[host]->tcp_to.find(from);
    if (it == hosts_[host]->tcp_to.end()) return;
    tcp_pairs_[it->second]->side[0]->on_segment(tail, seg);
    return tcp_write(it->second);  // ACKs free room in the send buffer
  }
  const auto it = hosts_[host]->tcp_from.find(from);
  if (it == hosts_[host]->tcp_from.end()) return;
  TcpPair& t = *tcp_pairs_[it->second];
  TcpConnection& server = *t.side[1];
  const std::uint64_t before = server.bytes_delivered();
  server.on_segment(tail, seg);
  const std::uint64_t got = server.bytes_delivered() - before;  // in order, read by the application
  delivered_payload_ += got;
  const bool in_window = tail >= window_.measure_begin && tail < window_.measure_end;
  if (in_window) accepted_payload_ += got;
  if (s.data_bytes > 0) {
    const std::size_t node = hosts_[host]->node;
    if (in_window && p) {
      accepted_wire_fs_ += static_cast<double>(fabric_.wire_edges(node, *p)) * fabric_.wire_edge_fs(node);
      ++accepted_packets_;
    } else if (in_window) {  // connected mode: the segment's RC packets
      std::uint32_t n = 0;
      accepted_wire_fs_ +=
          ipoib_cm_wire_fs(node, static_cast<std::uint32_t>(ipoib_tcp_headers_bytes(s)) + s.data_bytes, &n);
      accepted_packets_ += n;
    }
    if (p && p->measured) {
      packet_latency_.add(tail - p->created);
      network_latency_.add(tail - p->injected);
    }
  }
  while (!t.messages.empty() && t.messages.front().first <= server.bytes_delivered()) {
    const std::uint32_t slot = t.messages.front().second;
    t.messages.pop_front();
    message_delivered(slot, tail);
  }
  tcp_flush(it->second, 1);
}

bool TrafficClass::tcp_done() const {
  for (const auto& t : tcp_pairs_)
    if (t->app_pending > 0 || t->side[1]->bytes_delivered() < t->written) return false;
  return true;
}

std::uint64_t TrafficClass::tcp_waiting() const {
  std::uint64_t n = 0;
  for (const auto& t : tcp_pairs_) {
    const std::uint64_t taken = t->written - t->app_pending;
    for (const auto& [end, slot] : t->messages) n += end > taken ? 1 : 0;
  }
  return n;
}

nlohmann::json TrafficClass::tcp_results(double window_s, std::size_t senders) const {
  TcpStats c, s;  // clients (the data's senders), servers
  std::size_t established = 0;
  for (const auto& t : tcp_pairs_) {
    const TcpStats& a = t->side[0]->stats();
    const TcpStats& b = t->side[1]->stats();
    established += t->side[0]->established() && t->side[1]->established();
    c.segments_sent += a.segments_sent, c.data_segments_sent += a.data_segments_sent;
    c.retransmitted_segments += a.retransmitted_segments, c.retransmitted_bytes += a.retransmitted_bytes;
    c.fast_retransmits += a.fast_retransmits, c.rtos += a.rtos, c.dup_acks_received += a.dup_acks_received;
    s.segments_sent += b.segments_sent, s.pure_acks_sent += b.pure_acks_sent;
    s.out_of_order_segments += b.out_of_order_segments, s.duplicate_segments += b.duplicate_segments;
  }
  // The bound: back-to-back full segments (of the MSS the connection settled on) on a source's
  // link, data bytes only; the mean over the connections (their modes may differ).
  double bound_gbps = 0;
  for (const auto& t : tcp_pairs_) {
    const std::size_t node = hosts_[t->src]->node;
    const std::uint32_t mss = t->side[0]->smss();
    const MessagePackets m = message_packets(ClassTransport::kIpoibTcp, ClassVerb::kSend, mss, spec_.mtu);
    // Over a connection: a full segment (MSS + 44 bytes of headers) as one RC SEND of IB-MTU packets.
    const bool cm = spec_.ipoib_connected_hosts[t->src] && spec_.ipoib_connected_hosts[t->dst];
    const double fs = cm ? ipoib_cm_wire_fs(node, mss + kIpoibTcpOverhead)
                         : static_cast<double>(fabric_.ib_sized_wire_edges(node, m.first_bytes)) *
                               fabric_.wire_edge_fs(node);
    bound_gbps += mss * 8.0 / fs * 1e6 / static_cast<double>(tcp_pairs_.size());
  }
  const double goodput =
      senders > 0 && window_s > 0 ? static_cast<double>(accepted_payload_) * 8 / window_s / 1e9 / senders : 0.0;
  return {{"connections", tcp_pairs_.size()},
          {"established", established},
          {"mss", spec_.tcp.mss},
          {"segments_sent", c.segments_sent},
          {"data_segments_sent", c.data_segments_sent},
          {"retransmitted_segments", c.retransmitted_segments},
          {"retransmitted_bytes", c.retransmitted_bytes},
          {"fast_retransmits", c.fast_retransmits},
          {"rtos", c.rtos},
          {"dup_acks_received", c.dup_acks_received},
          {"receiver_segments_sent", s.segments_sent},
          {"receiver_pure_acks_sent", s.pure_acks_sent},
          {"out_of_order_segments", s.out_of_order_segments},
          {"duplicate_segments", s.duplicate_segments},
          {"goodput_gbps_per_source", goodput},
          {"bound_gbps_per_source", bound_gbps},
          {"gap", bound_gbps > 0 ? 1.0 - goodput / bound_gbps : 0.0}};
}

}  // namespace ibfsim
