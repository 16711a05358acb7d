// How a traffic class offers and posts its messages (traffic_class.h): a message takes a slot and
// goes to its endpoint; ud_send builds its packets at the wire when the host's send queue has room
// (at once, below saturation), verbs transports post a
// work request when fewer than tx_depth are outstanding on the QP (else it waits in arrival order)
// and post the next one as a send completes. Receives are posted again as they complete.
#include <algorithm>

#include "sim/core/error.h"
#include "sim/workload/message_packets.h"
#include "sim/workload/traffic_class_host.h"

namespace ibfsim {

using namespace verbs;

std::uint32_t TrafficClass::new_slot(const Message& m) {
  if (!free_slots_.empty()) {
    const std::uint32_t s = free_slots_.back();
    free_slots_.pop_back();
    messages_[s] = m;
    return s;
  }
  messages_.push_back(m);
  return static_cast<std::uint32_t>(messages_.size() - 1);
}

void TrafficClass::offer(std::size_t src, std::size_t dst, std::uint64_t bytes, bool measured, std::uint32_t step,
                         Time arrival) {
  Host& h = *hosts_[src];
  Message m;
  m.arrival = arrival;
  m.bytes = bytes;
  m.packets = message_packets(spec_.transport, spec_.verb, bytes, spec_.mtu).count;
  m.src = static_cast<std::uint32_t>(src);
  m.dst = static_cast<std::uint32_t>(dst);
  m.step = step;
  m.measured = measured;
  ++offered_messages_;
  if (measured) {
    ++measured_;
    offered_payload_ += bytes;
    offered_wire_fs_ += wire_fs(h.node, bytes, h.ib0 && h.ib0->connected());
  }
  const std::uint32_t slot = new_slot(m);
  if (spec_.transport == ClassTransport::kIpoibTcp) return tcp_offer(src, dst, slot);
  Endpoint* e = endpoint_for(src, dst);
  IBFSIM_CHECK(e != nullptr, "traffic class: no connection for a message");
  if (spec_.at_wire()) {
    h.unbuilt.push_back(slot);
    if (h.unbuilt.size() == 1) ud_send_pump(src);  // else the first waits for room already
    return;
  }
  if (e->outstanding < spec_.tx_depth && e->backlog.empty()) post(*e, slot);
  else e->backlog.push_back(slot);
}

void TrafficClass::ud_send_pump(std::size_t i) {
  Host& h = *hosts_[i];
  SendEngine& engine = h.hca->send_engine(1);
  const std::uint8_t vl = h.hca->sl_to_vl(1, spec_.sl);
  while (!h.unbuilt.empty()) {
    // ipoib_udp: the destination's address must be resolved (ARP) first; the interface calls
    // ipoib_resolved when it is.
    if (h.ib0 && !h.ib0->resolve(spec_.ipoib_addresses[messages_[h.unbuilt.front()].dst])) return;
    if (!engine.has_room(vl)) {
      h.feeder.cls = this;
      h.feeder.host = i;
      h.waiting_room = true;
      return engine.wait_for_room(vl, &h.feeder, messages_[h.unbuilt.front()].arrival);
    }
    ud_send_build(i);
  }
}

void TrafficClass::ud_send_build(std::size_t i) {
  // Packets built at the wire, one per MTU, together (their ids are consecutive), each dated from
  // the message's arrival.
  Host& h = *hosts_[i];
  const std::uint32_t slot = h.unbuilt.front();
  h.unbuilt.pop_front();
  const Message& m = messages_[slot];
  Host& d = *hosts_[m.dst];
  if (h.ib0) {
    // One UDP datagram (its size was checked against the IPoIB MTU), to the resolved neighbour.
    IpoibUdpDatagram u;
    u.dst_ip = spec_.ipoib_addresses[m.dst];
    u.src_port = kIpoibClassPort;
    u.dst_port = kIpoibClassPort;
    u.data_bytes = static_cast<std::uint32_t>(m.bytes);
    const IpoibInterface::Neighbour* to = h.ib0->resolve(u.dst_ip);
    IBFSIM_CHECK(to != nullptr, "ipoib_udp: a datagram built before its destination resolved");
    if (h.ib0->over_connection_to(*to)) {  // connected mode: delivered in order over the connection
      h.cm_udp_to[m.dst].push_back(slot);
      h.ib0->send_udp(*to, u, m.measured, static_cast<std::uint16_t>(index_), m.arrival);
      return;
    }
    // A connected-mode interface to a datagram-mode peer: UD, whose MTU a datagram may exceed
    // (dropped by the interface, as Linux does).
    const bool fits = ipoib_udp_payload_bytes(u.data_bytes) - kIpoibHeaderBytes <= h.ib0->path_mtu(*to);
    const std::uint64_t id = h.ib0->send_udp(*to, u, m.measured, static_cast<std::uint16_t>(index_), m.arrival);
    if (fits) h.ud->in_flight[id] = slot;
    return;
  }
  const Lid dlid = d.hca->lid(1);
  std::uint64_t left = m.bytes;
  std::uint64_t first_id = 0;
  for (std::uint32_t k = 0; k < m.packets; ++k) {
    const auto len = static_cast<std::uint32_t>(std::min<std::uint64_t>(left, spec_.mtu));
    left -= len;
    const std::uint64_t id = h.hca->post_ud_send(h.ud_qpn, dlid, d.ud_qpn, kClassQKey, len, m.measured, spec_.sl,
                                                 static_cast<std::uint16_t>(index_), m.arrival);
    if (k == 0) first_id = id;
  }
  h.ud->in_flight[first_id] = slot;
}

void TrafficClass::ud_send_feed(std::size_t i) {
  hosts_[i]->waiting_room = false;
  ud_send_build(i);
  ipoib_resolved(i);
}

void TrafficClass::ipoib_resolved(std::size_t i) {
  if (spec_.transport == ClassTransport::kIpoibTcp) return tcp_resolved(i);
  Host& h = *hosts_[i];
  if (h.waiting_room) return;  // the feeder goes on when there is room
  ud_send_pump(i);
  if (h.unbuilt.empty() && h.paused_arrival != kTimeNever) {
    const Time t = h.paused_arrival;
    h.paused_arrival = kTimeNever;
    draw_arrival(i, t);
  }
}

void TrafficClass::post(Endpoint& e, std::uint32_t slot) {
  const Message& m = messages_[slot];
  Host& h = *hosts_[m.src];
  Host& d = *hosts_[m.dst];
  ibv_send_wr wr;
  wr.wr_id = slot;
  wr.send_flags = IBV_SEND_SIGNALED;
  const auto len = static_cast<std::uint32_t>(m.bytes);
  wr.sg_list.push_back({h.buf, len, h.local_mr.lkey});
  switch (spec_.verb) {
    case ClassVerb::kSend: wr.opcode = IBV_WR_SEND; break;
    case ClassVerb::kWrite: wr.opcode = IBV_WR_RDMA_WRITE; break;
    case ClassVerb::kRead: wr.opcode = IBV_WR_RDMA_READ; break;
  }
  wr.rdma.remote_addr = d.buf;
  wr.rdma.rkey = d.target_mr.rkey;
  if (spec_.transport == ClassTransport::kUd) {
    verbs::AhHandle& ah = h.ah_to[m.dst];
    if (ah == 0) {
      ibv_ah_attr av;
      av.dlid = d.hca->lid(1);
      av.sl = spec_.sl;
      av.port_num = 1;
      ah = h.hca->create_ah(h.pd, av);
      IBFSIM_CHECK(ah != 0, "traffic class: ibv_create_ah refused");
    }
    wr.ud.ah = ah;
    wr.ud.remote_qpn = d.ud_qpn;
    wr.ud.remote_qkey = kClassQKey;
  }
  const int rc = h.hca->post_send(*e.qp, wr);
  if (rc != 0) {  // the QP broke (an error completion came first): the message is lost
    ++error_completions_;
    free_slots_.push_back(slot);
    return;
  }
  // PSNs it takes: one per data packet (READ: per response packet); UD: one.
  e.in_flight[e.next_seq] = slot;
  e.next_seq += m.packets;
  ++e.outstanding;
}

void TrafficClass::post_recv(std::size_t host, QueuePair& qp) {
  Host& h = *hosts_[host];
  ibv_recv_wr wr;
  wr.sg_list.push_back({h.buf, spec_.sizes.largest() + kClassUdGrhRoom, h.local_mr.lkey});
  IBFSIM_CHECK(h.hca->post_recv(qp, wr) == 0, "traffic class: post_recv refused");
}

void TrafficClass::Listener::on_completion(CqHandle cq, const ibv_wc&) {
  Hca& hca = *cls->hosts_[host]->hca;
  ibv_wc wc;
  while (hca.poll_cq(cq, 1, &wc) == 1) {
    if (recv) cls->on_recv_completion(host, wc);
    else cls->on_send_completion(host, wc);
  }
}

void TrafficClass::on_send_completion(std::size_t host, const ibv_wc& wc) {
  Host& h = *hosts_[host];
  if (wc.status != IBV_WC_SUCCESS) ++error_completions_;
  Endpoint* e = nullptr;
  if (h.ud_qp && h.ud_qp->qpn() == wc.qp_num) {
    e = h.ud.get();
  } else {
    auto it = by_requester_qp_.find(delivery_key(h.node, wc.qp_num));
    if (it != by_requester_qp_.end()) e = it->second;
  }
  IBFSIM_CHECK(e != nullptr && e->outstanding > 0, "traffic class: completion of an unknown send");
  --e->outstanding;
  while (!e->backlog.empty() && e->outstanding < spec_.tx_depth && e->qp->state() == IBV_QPS_RTS) {
    const std::uint32_t slot = e->backlog.front();
    e->backlog.pop_front();
    post(*e, slot);
  }
  owner_.flow_progress();
}

void TrafficClass::on_recv_completion(std::size_t host, const ibv_wc& wc) {
  if (wc.status != IBV_WC_SUCCESS) {
    ++error_completions_;
    return;
  }
  QueuePair* q = hosts_[host]->hca->qp(wc.qp_num);
  if (q && q->state() != IBV_QPS_ERR) post_recv(host, *q);
}

}  // namespace ibfsim
