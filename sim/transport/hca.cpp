#include "sim/transport/hca.h"

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/link/vcrc.h"
#include "sim/network/lrh.h"
#include "sim/transport/bth.h"
#include "sim/transport/icrc.h"
#include "sim/transport/p_key.h"
#include "sim/core/big_endian.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

std::uint8_t payload_pattern_byte(std::uint64_t packet_id, std::uint32_t offset) {
  std::uint64_t x = packet_id * 0x9E3779B97F4A7C15ull + offset;
  x ^= x >> 29;
  return static_cast<std::uint8_t>(x * 0xBF58476D1CE4E5B9ull >> 56);
}

Hca::Hca(const sc_core::sc_module_name& name, HcaConfig config, PacketPool& pool, PacketLedger& ledger)
    : ScheduledModule(name),
      config_(std::move(config)),
      pool_(pool),
      ledger_(ledger),
      dma_tx_(config_.host),
      dma_rx_(config_.host) {
  IBFSIM_CHECK(config_.port_lids.size() == config_.num_ports, "HCA needs one LID per port");
  if (config_.vl_arbitration.high.empty() && config_.vl_arbitration.low.empty())
    config_.vl_arbitration = default_vl_arbitration(config_.buffers.op_vls);
  for (unsigned i = 1; i <= config_.num_ports; ++i) {
    ports_.push_back(std::make_unique<LinkPort>(*this, *this, static_cast<PortNum>(i), config_.buffers,
                                                std::string(this->name()) + "/" + std::to_string(i)));
    arbiters_.emplace_back(config_.vl_arbitration);
  }
  arb_configs_.assign(config_.num_ports, config_.vl_arbitration);
  port_sl_to_vl_.assign(config_.num_ports, config_.sl_to_vl);
  port_lmc_.assign(config_.num_ports, 0);
  management_queues_.resize(config_.num_ports);
  send_queues_.resize(config_.num_ports);
  queued_vls_.assign(config_.num_ports, 0);
  qp_rings_.resize(config_.num_ports);
  staged_ready_.assign(config_.num_ports, {});
}

Qpn Hca::create_ud_qp(std::uint32_t q_key) {
  qps_.push_back(UdQp{q_key});
  return static_cast<Qpn>(kFirstQpn + qps_.size() - 1);
}

std::size_t Hca::queued_packets() const {
  std::size_t n = 0;
  for (const auto& port : send_queues_)
    for (const auto& q : port) n += q.size();
  return n;
}

std::uint64_t Hca::post_ud_send(Qpn src_qp, Lid dlid, Qpn dest_qp, std::uint32_t q_key, std::uint32_t bytes,
                                bool measured, std::uint8_t sl, std::uint16_t flow) {
  UdQp* qp = find_qp(src_qp);
  IBFSIM_CHECK(qp != nullptr, "post on a QP that does not exist");
  Packet* p = pool_.acquire();
  p->id = make_packet_id(config_.node_index, next_packet_seq_++);
  p->created = now();
  p->src_node = config_.node_index;
  p->measured = measured;
  p->flow = flow;
  const std::uint8_t vl = port_sl_to_vl_[0].vl(sl);
  UdSendFields f;
  f.sl = sl;
  f.vl = vl;
  f.dlid = dlid;
  f.slid = lid(1);
  f.dest_qp = dest_qp;
  f.psn = qp->next_psn;
  qp->next_psn = (qp->next_psn + 1) & 0xFFFFFF;
  f.q_key = q_key;
  f.src_qp = src_qp;
  std::vector<std::uint8_t> data;
  if (config_.carry_payload) {
    data.resize(bytes);
    for (std::uint32_t i = 0; i < bytes; ++i) data[i] = payload_pattern_byte(p->id, i);
  }
  build_ud_send(*p, f, bytes, config_.carry_payload ? data.data() : nullptr);
  ledger_.created();
  if (vl == kVl15 || vl >= ports_[0]->op_vls()) {
    drop_unsent(p, DropReason::kSlToVlDrop);
    return p->id;
  }
  send_queues_[0][vl].push_back(p);
  queued_vls_[0] |= static_cast<std::uint16_t>(1u << vl);
  try_send(1);
  return p->id;
}

void Hca::drop_unsent(Packet* p, DropReason reason) {
  ledger_.injected();  // counted as injected and dropped at once, so the ledger balances
  ledger_.dropped(reason);
  pool_.release(p);
}

void Hca::set_vl_arbitration(PortNum n, const VlArbConfig& config) {
  arb_configs_.at(n - 1) = config;
  arbiters_.at(n - 1) = VlArbiter(config);
}

void Hca::send_management(PortNum n, Packet* p) {
  IBFSIM_CHECK(is_management_packet(*p), "QP0 sends only VL15 packets");
  if (n == 0 || n > ports_.size() || !ports_[n - 1]->connected() || ports_[n - 1]->state() == PortState::kDown) {
    ledger_.dropped(DropReason::kLinkDown, true);
    pool_.release(p);
    return;
  }
  management_queues_[n - 1].push_back(p);
  try_send(n);
}

void Hca::on_port_state_change(LinkPort& port) {
  if (port.state() == PortState::kDown) {
    // SMPs waiting for a port that went down are lost with it.
    auto& q = management_queues_[port.number() - 1];
    while (!q.empty()) {
      ledger_.dropped(DropReason::kLinkDown, true);
      pool_.release(q.front());
      q.pop_front();
    }
  }
  if (agent_) agent_->on_port_state_change(port.number());
}

void Hca::try_send(PortNum n) {
  auto& queues = send_queues_[n - 1];
  LinkPort& port = *ports_[n - 1];
  std::uint16_t ready = 0;
  if (!qps_.empty()) pull_from_qps(n);
  auto& mq = management_queues_[n - 1];
  if (!mq.empty()) {
    // QP0 first: SMPs go before any data packet (VL15 precedes the arbitration tables).
    if (!port.can_start_data()) {
      port.notify_when_free();
      return;
    }
    Packet* p = mq.front();
    mq.pop_front();
    port.transmit(p);
    arbiters_[n - 1].sent(kVl15, static_cast<std::uint32_t>(p->wire_bytes()));
    if (!mq.empty() || queued_vls_[n - 1]) port.notify_when_free();
    return;
  }
  if (queued_vls_[n - 1] == 0) return;
  Time dma_wait = kTimeNever;
  for (std::uint16_t m = queued_vls_[n - 1]; m; m &= static_cast<std::uint16_t>(m - 1)) {
    const unsigned v = static_cast<unsigned>(__builtin_ctz(m));
    if (staged_ready_[n - 1][v] > now()) {
      // Its payload is still coming over the host interface.
      dma_wait = std::min(dma_wait, staged_ready_[n - 1][v]);
      continue;
    }
    const bool fits = port.may_send(static_cast<std::uint8_t>(v), credits_for_bytes(queues[v].front()->wire_bytes()));
    if (fits) ready |= static_cast<std::uint16_t>(1u << v);
    port.set_credit_stalled(static_cast<std::uint8_t>(v), !fits && port.state() == PortState::kActive);
  }
  if (dma_wait != kTimeNever && !send_ready_pending_) {
    send_ready_pending_ = true;
    schedule(dma_wait, this, kSendReady, n);
  }
  if (!port.can_start_data()) {
    port.notify_when_free();
    return;
  }
  const int vl = arbiters_[n - 1].choose(ready, false);
  if (vl < 0) return;  // no credits (on_credits retries) or the port is not Active yet
  auto& q = queues[vl];
  Packet* p = q.front();
  q.pop_front();
  if (q.empty()) {
    queued_vls_[n - 1] &= static_cast<std::uint16_t>(~(1u << vl));
    port.set_credit_stalled(static_cast<std::uint8_t>(vl), false);
  }
  p->injected = port.transmit(p);
  // The packet took credits: the next one may now lack them, and waits for them from now on.
  if (!q.empty())
    port.set_credit_stalled(static_cast<std::uint8_t>(vl),
                            !port.may_send(static_cast<std::uint8_t>(vl), credits_for_bytes(q.front()->wire_bytes())));
  // More to send: be told when this packet is out (no extra event, its end is already scheduled).
  if (queued_vls_[n - 1]) port.notify_when_free();
  arbiters_[n - 1].sent(vl, static_cast<std::uint32_t>(p->wire_bytes()));
  ledger_.injected();
  ++stats_.sent_packets;
  stats_.sent_payload_bytes += p->payload_len;
  if (send_observer_) send_observer_->on_injected(*this, *p);
}

void Hca::on_tx_done(LinkPort&, Packet*) {}

void Hca::on_output_free(LinkPort& port) { try_send(port.number()); }

void Hca::on_credits(LinkPort& port) { try_send(port.number()); }

void Hca::on_packet_head(LinkPort& port, Packet* p, Time, Time tail) {
  schedule(tail, this, kConsume, port.number(), p);
}

void Hca::on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) {
  switch (kind) {
    case kConsume: return consume(static_cast<PortNum>(arg), static_cast<Packet*>(ptr));
    case kDeliver: return deliver_verbs(static_cast<PortNum>(arg), static_cast<Packet*>(ptr));
    case kDoorbell:
      if (QueuePair* q = qp(static_cast<Qpn>(arg))) q->on_doorbell();
      return;
    case kTimer:
      if (QueuePair* q = qp(static_cast<Qpn>((arg >> 8) & kQpnMask)))
        q->on_timer(static_cast<std::uint8_t>(arg & 0xFF), arg >> 32);
      return;
    case kCompletion: {
      PendingCompletion c = completions_.front();
      completions_.pop_front();
      CompletionQueue& q = cq(c.cq);
      q.push(c.wc);
      if (q.listener()) q.listener()->on_completion(c.cq, c.wc);
      return;
    }
    case kSendReady:
      send_ready_pending_ = false;
      for (unsigned i = 1; i <= ports_.size(); ++i) try_send(static_cast<PortNum>(i));
      return;
    default: IBFSIM_CHECK(false, "unknown HCA action");
  }
}

void Hca::drop(PortNum n, Packet* p, DropReason reason) {
  ledger_.dropped(reason, is_management_packet(*p));
  ports_[n - 1]->free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
  pool_.release(p);
}

void Hca::on_link_discard(LinkPort&, Packet* p, DropReason reason) {
  ledger_.dropped(reason, is_management_packet(*p));
  pool_.release(p);
}

void Hca::consume(PortNum n, Packet* p) {
  // The link layer first (PHY errors, EBP, VCRC of a packet the line changed), then every check
  // over the bytes themselves.
  if (auto bad = ports_[n - 1]->check_tail(p->link_seq, p)) return drop(n, p, *bad);
  if (!vcrc_ok(*p)) return drop(n, p, DropReason::kVcrcError);
  const Lrh lrh = decode_lrh(p->header.data());
  if (lrh.lver != 0 || lrh.pkt_len != p->pkt_len_words()) return drop(n, p, DropReason::kMalformed);
  const bool vl15 = lrh.vl == kVl15;
  // R13: DLID 0 is never valid; the SLID is unicast, or permissive in a directed-route SMP.
  if (lrh.dlid == kLidReserved || !(is_unicast_lid(lrh.slid) || (lrh.slid == kLidPermissive && vl15)))
    return drop(n, p, DropReason::kInvalidLid);
  if (vl15) {
    // QP0: the SMA (and SM) take SMPs to the permissive LID or to this port.
    if (lrh.dlid != kLidPermissive && !is_own_lid(n, lrh.dlid)) return drop(n, p, DropReason::kWrongDlid);
    if (!agent_) return drop(n, p, DropReason::kNoQp);
    ports_[n - 1]->free_rx(kVl15, credits_for_bytes(p->wire_bytes()));
    agent_->on_management_packet(p, n);
    return;
  }
  const bool multicast = is_multicast_lid(lrh.dlid);
  if (multicast ? !mcast_qp_.count(lrh.dlid) : !is_own_lid(n, lrh.dlid)) return drop(n, p, DropReason::kWrongDlid);
  if (!icrc_ok(*p)) return drop(n, p, DropReason::kIcrcError);
  if (!qps_.empty()) {
    // A verbs QP takes the packet through the full transport parser.
    const std::size_t bth_at = kLrhBytes + (lrh.lnh == kLnhIbaGlobal ? kGrhBytes : 0);
    if (p->header_len >= bth_at + kBthBytes) {
      const Qpn dqp = load_be24(p->header.data() + bth_at + 5);
      const UdQp* slot = find_qp(multicast ? (mcast_qp_.count(lrh.dlid) ? mcast_qp_.at(lrh.dlid) : 0) : dqp);
      if (slot && slot->verbs) return consume_verbs(n, p, *slot->verbs, multicast);
    }
  }
  auto ud = parse_ud_send(*p);
  if (!ud || ud->bth.tver != 0) return drop(n, p, DropReason::kMalformed);
  // R2: QP0 takes SMPs on VL15 only; one on a data VL is discarded.
  if (ud->bth.dest_qp == 0) return drop(n, p, DropReason::kNoQp);
  // Multicast goes to DestQP 0xFFFFFF only (R14) and is delivered to the QP attached to the group.
  if (multicast && ud->bth.dest_qp != 0xFFFFFF) return drop(n, p, DropReason::kMalformed);
  const UdQp* qp = find_qp(multicast ? mcast_qp_.at(lrh.dlid) : ud->bth.dest_qp);
  if (qp == nullptr) return drop(n, p, DropReason::kNoQp);
  if (qp->q_key != ud->deth.q_key) return drop(n, p, DropReason::kQkeyMismatch);
  if (!p->payload.empty()) {
    for (std::uint32_t i = 0; i < p->payload_len; ++i) {
      if (p->payload[i] != payload_pattern_byte(p->id, i)) {
        ++stats_.payload_mismatches;
        break;
      }
    }
  }
  ++stats_.received_packets;
  stats_.received_payload_bytes += p->payload_len;
  ledger_.delivered();
  if (observer_) observer_->on_delivered(*this, *p, now());
  ports_[n - 1]->free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
  pool_.release(p);
}

// --- verbs ---

std::optional<verbs::ibv_mr> Hca::reg_mr(verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length,
                                          unsigned access) {
  if (pd == 0 || pd > pds_ || !memory_.contains(addr, length)) return std::nullopt;
  return mrs_.reg(pd, addr, length, access);
}

verbs::CqHandle Hca::create_cq(std::uint32_t cqe) {
  cqs_.push_back(std::make_unique<CompletionQueue>(cqe));
  return static_cast<verbs::CqHandle>(cqs_.size());
}

QueuePair* Hca::create_qp(verbs::PdHandle pd, const verbs::ibv_qp_init_attr& init) {
  if (pd == 0 || pd > pds_ || init.send_cq == 0 || init.send_cq > cqs_.size() || init.recv_cq == 0 ||
      init.recv_cq > cqs_.size())
    return nullptr;
  if (init.qp_type != verbs::IBV_QPT_RC && init.qp_type != verbs::IBV_QPT_UC && init.qp_type != verbs::IBV_QPT_UD)
    return nullptr;
  const Qpn qpn = static_cast<Qpn>(kFirstQpn + qps_.size());
  UdQp slot{0};
  slot.verbs = std::make_unique<QueuePair>(*this, qpn, pd, init);
  qps_.push_back(std::move(slot));
  in_ring_.resize(qps_.size(), 0);
  return qps_.back().verbs.get();
}

QueuePair* Hca::qp(Qpn qpn) {
  UdQp* s = find_qp(qpn);
  return s ? s->verbs.get() : nullptr;
}

int Hca::modify_qp(QueuePair& q, const verbs::ibv_qp_attr& attr, unsigned mask) {
  if ((mask & verbs::IBV_QP_PORT) && (attr.port_num < 1 || attr.port_num > ports_.size())) return EINVAL;
  if ((mask & verbs::IBV_QP_PKEY_INDEX) && attr.pkey_index >= config_.p_keys.size()) return EINVAL;
  return q.modify(attr, mask);
}

int Hca::post_send(QueuePair& q, const verbs::ibv_send_wr& wr) {
  const Time ready = now() + config_.doorbell_to_wire;
  const int rc = q.post_send(wr, ready);
  if (rc == 0) schedule(ready, this, kDoorbell, q.qpn());
  return rc;
}

int Hca::post_recv(QueuePair& q, const verbs::ibv_recv_wr& wr) { return q.post_recv(wr); }

QpStats Hca::qp_stats() const {
  QpStats t;
  for (const auto& slot : qps_) {
    if (!slot.verbs) continue;
    const QpStats& s = slot.verbs->stats();
    t.packets_sent += s.packets_sent;
    t.packets_retransmitted += s.packets_retransmitted;
    t.acks_sent += s.acks_sent;
    t.acks_received += s.acks_received;
    t.naks_seq_sent += s.naks_seq_sent;
    t.naks_seq_received += s.naks_seq_received;
    t.rnr_naks_sent += s.rnr_naks_sent;
    t.rnr_naks_received += s.rnr_naks_received;
    t.naks_error_sent += s.naks_error_sent;
    t.naks_error_received += s.naks_error_received;
    t.ack_timeouts += s.ack_timeouts;
    t.duplicates_received += s.duplicates_received;
    t.out_of_sequence_dropped += s.out_of_sequence_dropped;
    t.uc_messages_dropped += s.uc_messages_dropped;
    t.qkey_violations += s.qkey_violations;
    t.no_recv_wqe_dropped += s.no_recv_wqe_dropped;
    t.remote_access_errors += s.remote_access_errors;
  }
  return t;
}

void Hca::wake(QueuePair& q) {
  const std::size_t i = q.qpn() - kFirstQpn;
  if (in_ring_[i] || !q.has_output()) return;
  in_ring_[i] = 1;
  qp_rings_[q.port() - 1][q.vl()].qps.push_back(&q);
  if (!in_pull_) try_send(q.port());
}

void Hca::pull_from_qps(PortNum n) {
  in_pull_ = true;
  auto& rings = qp_rings_[n - 1];
  auto& queues = send_queues_[n - 1];
  for (unsigned v = 0; v <= kMaxDataVls; ++v) {
    auto& ring = rings[v].qps;
    // One packet staged per VL: QPs take turns, each builds its packet only when it can go next.
    while (!ring.empty() && queues[v].empty()) {
      QueuePair* q = ring.front();
      ring.pop_front();
      in_ring_[q->qpn() - kFirstQpn] = 0;
      if (!q->has_output()) continue;
      Packet* p = pool_.acquire();
      if (!q->build_next(*p)) {
        pool_.release(p);
      } else {
        p->id = make_packet_id(config_.node_index, next_packet_seq_++);
        p->created = now();
        p->src_node = config_.node_index;
        p->measured = true;
        ledger_.created();
        if (v == kVl15 || v >= ports_[n - 1]->op_vls()) {
          drop_unsent(p, DropReason::kSlToVlDrop);
        } else {
          staged_ready_[n - 1][v] = dma_tx_.transfer(now(), p->payload_len);
          queues[v].push_back(p);
          queued_vls_[n - 1] |= static_cast<std::uint16_t>(1u << v);
        }
      }
      if (q->has_output() && !in_ring_[q->qpn() - kFirstQpn]) {
        in_ring_[q->qpn() - kFirstQpn] = 1;
        ring.push_back(q);
      }
    }
  }
  in_pull_ = false;
}

void Hca::arm_timer(QueuePair& q, std::uint8_t kind, Time at, std::uint64_t generation) {
  schedule(at, this, kTimer, ((generation & 0xFFFFFFFFu) << 32) | (std::uint64_t{q.qpn()} << 8) | kind);
}

void Hca::complete(QueuePair& q, bool send_side, const verbs::ibv_wc& wc) {
  const Time at = now() + config_.wire_to_completion;
  completions_.push_back({at, send_side ? q.init_attr().send_cq : q.init_attr().recv_cq, wc});
  schedule(at, this, kCompletion);
}

std::uint16_t Hca::port_p_key(PortNum, std::uint16_t index) const {
  return index < config_.p_keys.size() ? config_.p_keys[index] : 0;
}

Grh Hca::port_grh_source(PortNum port) const {
  Grh g;
  g.sgid[0] = 0xFE;
  g.sgid[1] = 0x80;
  const std::uint64_t guid = config_.port_guid_base + port;
  for (int i = 0; i < 8; ++i) g.sgid[8 + i] = static_cast<std::uint8_t>(guid >> (56 - 8 * i));
  return g;
}

void Hca::consume_verbs(PortNum n, Packet* p, QueuePair& q, bool multicast) {
  const ParsedPacket pp = parse_transport_packet(*p);
  if (!pp.ok() || pp.h.bth.tver != 0) return drop(n, p, DropReason::kMalformed);  // R22
  // R14: multicast only for UD, to DestQP 0xFFFFFF.
  if (multicast && (opcode_service(pp.h.bth.opcode) != kOpcodeUdBase || pp.h.bth.dest_qp != 0xFFFFFF))
    return drop(n, p, DropReason::kMalformed);
  // R37: P_Key (QP0 is exempt).
  if (q.qpn() != 0 && !p_key_match(pp.h.bth.p_key, port_p_key(n, q.attr().pkey_index)))
    return drop(n, p, DropReason::kPkeyViolation);
  // The payload goes to host memory over the host interface; the buffer is freed when it is done.
  const Time done = dma_rx_.transfer(now(), p->payload_len);
  if (done > now()) {
    schedule(done, this, kDeliver, n, p);
    return;
  }
  deliver_verbs(n, p, &pp);
}

void Hca::deliver_verbs(PortNum n, Packet* p, const ParsedPacket* parsed) {
  // A delivery delayed by DMA parses again rather than keep a parsed copy per packet in flight.
  const ParsedPacket pp = parsed ? *parsed : parse_transport_packet(*p);
  const bool multicast = is_multicast_lid(pp.h.lrh.dlid);
  const Qpn qpn = multicast ? mcast_qp_.at(pp.h.lrh.dlid) : pp.h.bth.dest_qp;
  if (QueuePair* q = qp(qpn)) q->receive(pp, *p);
  ++stats_.received_packets;
  stats_.received_payload_bytes += p->payload_len;
  ledger_.delivered();
  if (observer_) observer_->on_delivered(*this, *p, now());
  ports_[n - 1]->free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
  pool_.release(p);
}

}  // namespace ibfsim
