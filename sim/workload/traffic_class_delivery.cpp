// What becomes of a traffic class's messages (traffic_class.h): each data packet delivered is
// matched to its message by its QP and PSN (ud_send: its packet id), counted as accepted in the
// measurement window and timed; a message's last packet completes it and, in a collective, lets
// its destination post the steps that waited for it.
#include "sim/transport/opcode.h"
#include "sim/transport/packet_fields.h"
#include "sim/workload/message_packets.h"
#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

void TrafficClass::on_delivered(std::size_t node, const Packet& p, Time tail) {
  const std::uint8_t operation = opcode_operation(packet_opcode(p));
  const Qpn dqp = packet_dest_qp(p);
  const std::uint64_t key = delivery_key(node, dqp);
  Endpoint* e = nullptr;
  const bool read_response = operation >= op::kRdmaReadRespFirst && operation <= op::kRdmaReadRespOnly;
  const bool request_data = operation <= op::kRdmaWriteOnlyImm;
  const auto here = host_of_node_.find(node);
  if (here == host_of_node_.end()) return;
  std::uint32_t payload = p.payload_len;
  // Connected mode: what the RC QPs carry is counted as their receives complete.
  if (const Host& to = *hosts_[here->second]; to.ib0 && to.ib0->connected() && dqp != to.ib0->qpn() && dqp != 0xFFFFFF)
    return;
  if (Host& to = *hosts_[here->second]; to.ib0 && spec_.transport == ClassTransport::kIpoibTcp) {
    // ipoib_tcp: a segment goes to its connection (traffic_class_tcp.cpp); ARP to the interface.
    if (auto s = to.ib0->on_delivered_tcp(p)) tcp_delivered(here->second, p, *s, tail);
    else to.ib0->on_delivered(p);
    return;
  } else if (to.ib0) {
    // ARP is the interface's; a UDP datagram's data is the class's payload.
    if (!to.ib0->on_delivered(p)) return;
    payload -= kIpoibUdpOverhead;
  }
  if (hosts_[here->second]->ud) {
    if (!request_data) return;
    auto from = host_of_node_.find(p.src_node);
    if (from == host_of_node_.end()) return;
    e = hosts_[from->second]->ud.get();
  } else if (read_response) {
    auto it = by_requester_qp_.find(key);
    if (it != by_requester_qp_.end()) e = it->second;
  } else if (request_data && spec_.verb != ClassVerb::kRead) {
    auto it = by_target_qp_.find(key);
    if (it != by_target_qp_.end()) e = it->second;
  }
  if (e == nullptr) return;  // ACKs, READ requests
  delivered_payload_ += payload;
  // Accepted throughput: every data packet delivered in the window.
  if (tail >= window_.measure_begin && tail < window_.measure_end) {
    accepted_wire_fs_ += static_cast<double>(fabric_.wire_edges(node, p)) * fabric_.wire_edge_fs(node);
    accepted_payload_ += payload;
    ++accepted_packets_;
  }
  if (e->in_flight.empty()) return;  // a duplicate (RC retransmission) of a delivered message
  std::uint64_t seq;
  if (spec_.at_wire()) {
    seq = p.id;
  } else {
    const std::uint64_t base = e->in_flight.begin()->first;
    const Psn psn = packet_psn(p);
    seq = base + ((psn - base) & 0xFFFFFF);
  }
  auto it = e->in_flight.upper_bound(seq);
  if (it == e->in_flight.begin()) return;
  --it;
  const std::uint32_t slot = it->second;
  const Message& m = messages_[slot];
  if (seq >= it->first + m.packets) return;
  if (m.measured) {
    packet_latency_.add(tail - p.created);
    network_latency_.add(tail - p.injected);
  }
  if (seq == it->first + m.packets - 1) {
    e->in_flight.erase(it);
    message_delivered(slot, tail);
  }
}

void TrafficClass::udp_connected_in(std::size_t host, const IpoibUdpDatagram& d) {
  const std::size_t from = host_of_address(d.src_ip);
  if (from == kClassNoHost) return;
  std::deque<std::uint32_t>& sent = hosts_[from]->cm_udp_to[host];
  if (sent.empty()) return;
  const std::uint32_t slot = sent.front();
  sent.pop_front();
  const Time now = hosts_[host]->hca->now();
  delivered_payload_ += d.data_bytes;
  if (now >= window_.measure_begin && now < window_.measure_end) {
    std::uint32_t n = 0;
    accepted_wire_fs_ += ipoib_cm_wire_fs(hosts_[host]->node, d.data_bytes + kIpoibUdpOverhead, &n);
    accepted_payload_ += d.data_bytes;
    accepted_packets_ += n;
  }
  message_delivered(slot, now);
}

void TrafficClass::message_delivered(std::uint32_t slot, Time tail) {
  const Message m = messages_[slot];
  free_slots_.push_back(slot);
  ++delivered_messages_;
  if (m.measured) {
    ++measured_delivered_;
    message_latency_.add(tail - m.arrival);
  }
  if (!spec_.collective()) return;
  Host& h = *hosts_[m.dst];
  if (m.step < h.received.size()) h.received[m.step] = 1;
  while (h.got < steps_ && h.received[h.got]) ++h.got;
  h.hca->schedule<&TrafficClass::steps_enabled>(tail + h.react, this, m.dst);
  if (++received_this_iteration_ == hosts_.size() * steps_) {
    fct_.emplace_back(iteration_start_, tail);
    ++iteration_;
    if (iteration_ < spec_.iterations) hosts_.front()->hca->schedule<&TrafficClass::iteration_starts>(tail, this);
    owner_.flow_progress();
  }
}

}  // namespace ibfsim
