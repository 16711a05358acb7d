#include "sim/transport/hca.h"

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/link/vcrc.h"
#include "sim/network/lrh.h"
#include "sim/transport/bth.h"
#include "sim/transport/cnp.h"
#include "sim/transport/icrc.h"
#include "sim/transport/p_key.h"
#include "sim/transport/q_key.h"
#include "sim/core/big_endian.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

namespace {
// Moves the boundary between payload and pad of a received packet to `payload_len` (the bytes
// are unchanged: what was pad is zeros).
void split_payload(Packet& p, std::uint32_t payload_len, bool carried) {
  const std::uint32_t body = p.payload_len + p.pad_len;
  IBFSIM_CHECK(payload_len <= body && body - payload_len <= 3, "payload split outside the packet body");
  if (carried) p.payload.resize(payload_len, 0);
  p.payload_len = payload_len;
  p.pad_len = static_cast<std::uint8_t>(body - payload_len);
}
}  // namespace

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
  }
  port_sl_to_vl_.assign(config_.num_ports, config_.sl_to_vl);
  port_lmc_.assign(config_.num_ports, 0);
  for (unsigned i = 1; i <= config_.num_ports; ++i)
    senders_.push_back(std::make_unique<PortSender>(*this, static_cast<PortNum>(i), config_.vl_arbitration));
  send_queues_.resize(config_.num_ports);
  queued_vls_.assign(config_.num_ports, 0);
  qp_rings_.resize(config_.num_ports);
  ring_vls_.assign(config_.num_ports, 0);
  staged_ready_.assign(config_.num_ports, {});
  discards_.assign(config_.num_ports, {});
}

Qpn Hca::create_ud_qp(std::uint32_t q_key) {
  UdQp slot;
  slot.q_key = q_key;
  qps_.push_back(std::move(slot));
  return static_cast<Qpn>(kFirstQpn + qps_.size() - 1);
}

std::size_t Hca::queued_packets() const {
  std::size_t n = 0;
  for (const auto& port : send_queues_)
    for (const auto& q : port) n += q.size();
  if (cc_)
    for (const auto& q : cc_->cnps) n += q.size();
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
  p->src_qp = src_qp;
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
  enqueue(1, vl, p, nullptr);
  try_send(1);
  return p->id;
}

std::uint64_t Hca::send_raw(const Packet& raw, PortNum n) {
  IBFSIM_CHECK(n >= 1 && n <= ports_.size(), "send_raw on a port the HCA does not have");
  Packet* p = pool_.acquire();
  *p = raw;
  p->id = make_packet_id(config_.node_index, next_packet_seq_++);
  p->created = now();
  p->src_node = config_.node_index;
  p->link_seq = 0;
  p->end_pending = false;
  p->may_be_corrupted = false;
  p->received_frame.clear();
  ledger_.created();
  const std::uint8_t vl = p->header[0] >> 4;
  if (vl != kVl15 && vl >= ports_[n - 1]->op_vls()) {
    drop_unsent(p, DropReason::kSlToVlDrop);
    return p->id;
  }
  enqueue(n, vl, p, nullptr);
  try_send(n);
  return p->id;
}

void Hca::enqueue(PortNum n, std::uint8_t vl, Packet* p, QueuePair* qp) {
  send_queues_[n - 1][vl].push_back({p, qp});
  queued_vls_[n - 1] |= static_cast<std::uint16_t>(1u << vl);
}

void Hca::drop_unsent(Packet* p, DropReason reason) {
  ledger_.injected();  // counted as injected and dropped at once, so the ledger balances
  ledger_.dropped(reason);
  pool_.release(p);
}

void Hca::set_vl_arbitration(PortNum n, const VlArbConfig& config) {
  senders_.at(n - 1)->stage.set_vl_arbitration(config);
}

void Hca::send_management(PortNum n, Packet* p) {
  IBFSIM_CHECK(is_management_packet(*p), "QP0 sends only VL15 packets");
  if (n == 0 || n > ports_.size() || !ports_[n - 1]->connected() || ports_[n - 1]->state() == PortState::kDown) {
    ledger_.dropped(DropReason::kLinkDown, true);
    pool_.release(p);
    return;
  }
  senders_[n - 1]->stage.send_management(p);
}

void Hca::send_gsi(PortNum n, Packet* p) {
  IBFSIM_CHECK(!is_management_packet(*p), "GMPs travel on data VLs");
  if (n == 0 || n > ports_.size() || !ports_[n - 1]->connected() || ports_[n - 1]->state() == PortState::kDown) {
    ledger_.dropped(DropReason::kLinkDown, true);
    pool_.release(p);
    return;
  }
  senders_[n - 1]->stage.send_gsi(p);
}

void Hca::on_port_state_change(LinkPort& port) {
  // SMPs waiting for a port that went down are lost with it (its output stage drops them).
  if (port.state() == PortState::kDown) try_send(port.number());
  if (agent_) agent_->on_port_state_change(port.number());
}

// --- the send side of a port (PortOutput::Source) ---

void Hca::PortSender::prepare() {
  dma_wait = cc_wait = kTimeNever;
  if (h.ring_vls_[n - 1]) h.pull_from_qps(n);
}

PortOutput::Candidacy Hca::PortSender::candidate(std::uint8_t v) {
  const Time now = h.now();
  if (h.staged_ready_[n - 1][v] > now) {
    // Its payload is still coming over the host interface.
    dma_wait = std::min(dma_wait, h.staged_ready_[n - 1][v]);
    return PortOutput::Candidacy::kNone;
  }
  const Packet& p = *h.send_queues_[n - 1][v].front().p;
  if (h.cc_) {
    // Congestion control holds the flow's next packet until its inter-packet delay is over.
    const Time ready_at = h.cc_ready_at(n, p);
    if (ready_at > now) {
      cc_wait = std::min(cc_wait, ready_at);
      return PortOutput::Candidacy::kNone;
    }
  }
  return stage.port().may_send(v, credits_for_bytes(p.wire_bytes())) ? PortOutput::Candidacy::kReady
                                                                      : PortOutput::Candidacy::kBlocked;
}

void Hca::PortSender::surveyed() {
  if (dma_wait != kTimeNever && !h.send_ready_pending_) {
    h.send_ready_pending_ = true;
    h.schedule<&Hca::staged_payload_ready>(dma_wait, &h);
  }
  if (h.cc_ && cc_wait != kTimeNever) h.cc_wake(n, cc_wait);
}

Packet* Hca::PortSender::take(std::uint8_t v) {
  auto& q = h.send_queues_[n - 1][v];
  const Queued next = q.front();
  q.pop_front();
  if (q.empty()) h.queued_vls_[n - 1] &= static_cast<std::uint16_t>(~(1u << v));
  taken_qp = next.qp;
  return next.p;
}

void Hca::PortSender::sent(std::uint8_t, Packet* p, Time start) {
  p->injected = start;
  if (h.cc_ && p->src_qp != 0) h.cc_sent(n, *p);
  h.ledger_.injected();
  ++h.stats_.sent_packets;
  h.stats_.sent_payload_bytes += p->payload_len;
  if (h.send_observer_) h.send_observer_->on_injected(h, *p);
  if (taken_qp) taken_qp->on_transmitted(*p);  // an RC request starts its ACK timer
  // Verbs QPs: stage the next packet now, so that its payload DMA overlaps this packet's time on
  // the wire (a pipelined HCA), rather than starting only once the line is free again.
  if (h.ring_vls_[n - 1]) h.pull_from_qps(n);
}

bool Hca::PortSender::blocked_after_send(std::uint8_t v) {
  const auto& q = h.send_queues_[n - 1][v];
  return !q.empty() && !stage.port().may_send(v, credits_for_bytes(q.front().p->wire_bytes()));
}

void Hca::on_tx_done(LinkPort&, Packet*) {}

void Hca::on_output_free(LinkPort& port) { try_send(port.number()); }

void Hca::on_credits(LinkPort& port) { try_send(port.number()); }

void Hca::on_packet_head(LinkPort& port, Packet* p, Time, Time tail) {
  schedule<&Hca::tail_arrives>(tail, this, p, port.number());
}

void Hca::tail_arrives(Packet* p, PortNum n) { consume(n, p); }

void Hca::rx_dma_done(Packet* p, PortNum n) { deliver_verbs(n, p); }

void Hca::doorbell(Qpn qpn) {
  if (QueuePair* q = qp(qpn)) q->on_doorbell();
}

void Hca::qp_timer(QpTimer t) {
  if (QueuePair* q = qp(t.qpn)) q->on_timer(t.kind, t.generation);
}

void Hca::completion_due() {
  PendingCompletion c = completions_.front();
  completions_.pop_front();
  CompletionQueue& q = cq(c.cq);
  q.push(c.wc);
  if (q.listener()) q.listener()->on_completion(c.cq, c.wc);
}

void Hca::staged_payload_ready() {
  send_ready_pending_ = false;
  for (unsigned i = 1; i <= ports_.size(); ++i) try_send(static_cast<PortNum>(i));
}

void Hca::cc_timer_expired(std::uint32_t key) {
  if (cc_)
    if (auto next = cc_->throttle.on_timer(static_cast<CcThrottle::Key>(key), now()))
      schedule<&Hca::cc_timer_expired>(*next, this, key);
}

void Hca::cc_delay_over(PortNum n) {
  if (cc_ && cc_->wake_at[n - 1] <= now()) cc_->wake_at[n - 1] = kTimeNever;
  try_send(n);
}

void Hca::drop(PortNum n, Packet* p, DropReason reason) {
  ledger_.dropped(reason, counts_as_management(*p));
  ++discards_[n - 1][static_cast<int>(reason)];
  ports_[n - 1]->free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
  pool_.release(p);
}

void Hca::on_link_discard(LinkPort& port, Packet* p, DropReason reason) {
  ledger_.dropped(reason, counts_as_management(*p));
  ++discards_[port.number() - 1][static_cast<int>(reason)];
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
  if (cc_ && is_cnp(*p)) return consume_cnp(n, p);
  if (agent_ && !multicast && lrh.lnh == kLnhIbaLocal && p->header_len >= kLrhBytes + kBthBytes &&
      load_be24(p->header.data() + kLrhBytes + 5) == 1) {
    // QP1, the GSI: the management agent takes the GMP (and checks its Q_Key and MAD).
    ports_[n - 1]->free_rx(lrh.vl, credits_for_bytes(p->wire_bytes()));
    agent_->on_management_packet(p, n);
    return;
  }
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
  if (!ud_q_key_accepted(ud->bth.dest_qp, qp->q_key, ud->deth.q_key)) return drop(n, p, DropReason::kQkeyMismatch);
  if (cc_ && ud->bth.fecn) {
    // The generator's UD QP owes no response: the BECN goes back in a CNP to DETH.SrcQP.
    const Qpn local = multicast ? mcast_qp_.at(lrh.dlid) : ud->bth.dest_qp;
    CcQpCounters& c = cc_->counters[local];
    ++c.fecn_received;
    ++c.cnp_sent;
    cc_send_cnp(n, cnp_for(lrh, std::nullopt, ud->bth, ud->deth.src_qp, lid(n), sl_to_vl(n, lrh.sl),
                           port_grh_source(n).sgid));
  }
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
  UdQp slot;
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
  if (rc == 0) schedule<&Hca::doorbell>(ready, this, q.qpn());
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
    t.retry_exceeded += s.retry_exceeded;
    t.rnr_retry_exceeded += s.rnr_retry_exceeded;
    t.implied_naks += s.implied_naks;
    t.stale_responses += s.stale_responses;
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
  ring_vls_[q.port() - 1] |= static_cast<std::uint16_t>(1u << q.vl());
  if (!in_pull_) try_send(q.port());
}

void Hca::pull_from_qps(PortNum n) {
  in_pull_ = true;
  auto& rings = qp_rings_[n - 1];
  auto& queues = send_queues_[n - 1];
  // Only the VLs whose ring holds QPs: the rings are deques, each a few cache lines to look at.
  for (unsigned v = 0; v <= kMaxDataVls; ++v) {
    if (!(ring_vls_[n - 1] >> v & 1)) continue;
    auto& ring = rings[v].qps;
    // One packet staged per VL: QPs take turns, each builds its packet only when it can go next.
    while (!ring.empty() && queues[v].empty()) {
      if (cc_) cc_pick_front(n, ring);
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
        p->src_qp = q->qpn();
        ledger_.created();
        if (v == kVl15 || v >= ports_[n - 1]->op_vls()) {
          drop_unsent(p, DropReason::kSlToVlDrop);
        } else {
          staged_ready_[n - 1][v] = dma_tx_.transfer(now(), q->last_built_inline() ? 0 : p->payload_len);
          enqueue(n, static_cast<std::uint8_t>(v), p, q);
        }
      }
      if (q->has_output() && !in_ring_[q->qpn() - kFirstQpn]) {
        in_ring_[q->qpn() - kFirstQpn] = 1;
        ring.push_back(q);
      }
    }
    if (ring.empty()) ring_vls_[n - 1] &= static_cast<std::uint16_t>(~(1u << v));
  }
  in_pull_ = false;
}

void Hca::arm_timer(QueuePair& q, std::uint8_t kind, Time at, std::uint64_t generation) {
  schedule<&Hca::qp_timer>(at, this, QpTimer{generation & 0xFFFFFFFFu, q.qpn(), kind});
}

void Hca::complete(QueuePair& q, bool send_side, const verbs::ibv_wc& wc) {
  const Time at = now() + config_.wire_to_completion;
  completions_.push_back({at, send_side ? q.init_attr().send_cq : q.init_attr().recv_cq, wc});
  schedule<&Hca::completion_due>(at, this);
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
  // R22 (TVer), R23 (a PadCnt the packet has no room for), R25 (GRH fields), lengths.
  if (!pp.ok() || pp.h.bth.tver != 0) return drop(n, p, DropReason::kMalformed);
  // Which bytes are payload and which pad is what PktLen and PadCnt say (R23), whatever the
  // sender meant: the receiver knows only the bytes.
  if (pp.payload_len != p->payload_len) split_payload(*p, pp.payload_len, config_.carry_payload);
  // R14: multicast only for UD, to DestQP 0xFFFFFF.
  if (multicast && (opcode_service(pp.h.bth.opcode) != kOpcodeUdBase || pp.h.bth.dest_qp != 0xFFFFFF))
    return drop(n, p, DropReason::kMalformed);
  // R37: P_Key (QP0 is exempt).
  if (q.qpn() != 0 && !p_key_match(pp.h.bth.p_key, port_p_key(n, q.attr().pkey_index)))
    return drop(n, p, DropReason::kPkeyViolation);
  // The payload goes to host memory over the host interface; the buffer is freed when it is done.
  // A packet without payload still waits for the payloads ahead of it: the transport and the host
  // see the packets in the order they arrived (an ACK never overtakes a READ response's data).
  const Time done = p->payload_len ? dma_rx_.transfer(now(), p->payload_len) : dma_rx_.drained(now());
  if (done > now()) {
    schedule<&Hca::rx_dma_done>(done, this, p, n);
    return;
  }
  deliver_verbs(n, p, &pp);
}

void Hca::deliver_verbs(PortNum n, Packet* p, const ParsedPacket* parsed) {
  // A delivery delayed by DMA parses again rather than keep a parsed copy per packet in flight.
  const ParsedPacket pp = parsed ? *parsed : parse_transport_packet(*p);
  const bool multicast = is_multicast_lid(pp.h.lrh.dlid);
  const Qpn qpn = multicast ? mcast_qp_.at(pp.h.lrh.dlid) : pp.h.bth.dest_qp;
  QueuePair* q = qp(qpn);
  // An RC response arriving at its requester owes nothing back: its BECN can only go in a CNP.
  const bool response = opcode_service(pp.h.bth.opcode) == kOpcodeRcBase &&
                        opcode_operation(pp.h.bth.opcode) >= op::kRdmaReadRespFirst &&
                        opcode_operation(pp.h.bth.opcode) <= op::kAtomicAcknowledge;
  if (q) {
    if (cc_ && pp.h.bth.fecn && !response) q->offer_becn();
    // A silent discard by the QP (a Q_Key violation) is counted like the HCA's own discards.
    if (const auto dropped = q->receive(pp, *p)) {
      if (cc_) q->carry_becn();  // withdraws the offer
      return drop(n, p, *dropped);
    }
  }
  if (cc_ && q && (pp.h.bth.becn || pp.h.bth.fecn)) {
    // A BECN throttles this QP; a FECN is answered on the response it owes, or with a CNP.
    if (pp.h.bth.becn) {
      ++cc_->counters[qpn].becn_received;
      cc_on_becn(n, qpn, pp.h.lrh.sl);
    }
    if (pp.h.bth.fecn) {
      CcQpCounters& c = cc_->counters[qpn];
      ++c.fecn_received;
      if (becn_carrier(!response && q->carry_becn()) == BecnCarrier::kResponse) {
        ++c.becn_on_response;
      } else {
        ++c.cnp_sent;
        const Qpn source = (pp.ext & kExtDeth) ? pp.h.deth.src_qp : q->attr().dest_qp_num;
        cc_send_cnp(n, cnp_for(pp.h.lrh, pp.h.grh, pp.h.bth, source, lid(n), sl_to_vl(n, pp.h.lrh.sl),
                               port_grh_source(n).sgid));
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

// --- congestion control (IBA Annex A10) ---

void Hca::set_congestion_control(const CaCongestionConfig& config) {
  if (cc_) cc_->throttle.set_config(config);
  else cc_ = std::make_unique<Congestion>(config, num_ports());
}

const std::map<Qpn, CcQpCounters>& Hca::cc_counters() const {
  static const std::map<Qpn, CcQpCounters> none;
  return cc_ ? cc_->counters : none;
}

CcThrottle::Key Hca::cc_key(PortNum n, const Packet& p) const {
  return cc_->throttle.key(p.src_qp, n, lrh_sl(p.header.data()));
}

Time Hca::cc_ready_at(PortNum n, const Packet& p) const { return cc_->throttle.ready_at(cc_key(n, p)); }

void Hca::cc_sent(PortNum n, const Packet& p) {
  const LinkPort& port = *ports_[n - 1];
  cc_->throttle.sent(cc_key(n, p), lrh_sl(p.header.data()), port.clock().cycle_at_or_after(p.injected),
                     port.symbols_for(p.wire_bytes()), port.clock());
}

void Hca::cc_on_becn(PortNum n, Qpn qpn, std::uint8_t sl) {
  const CcThrottle::Key key = cc_->throttle.key(qpn, n, sl);
  if (auto at = cc_->throttle.on_becn(key, sl, now())) schedule<&Hca::cc_timer_expired>(*at, this, key);
}

void Hca::cc_wake(PortNum n, Time at) {
  if (at >= cc_->wake_at[n - 1]) return;  // an earlier wake is pending
  cc_->wake_at[n - 1] = at;
  schedule<&Hca::cc_delay_over>(at, this, n);
}

void Hca::cc_send_cnp(PortNum n, const CnpFields& f) {
  Packet* p = pool_.acquire();
  p->id = make_packet_id(config_.node_index, next_packet_seq_++);
  p->created = now();
  p->src_node = config_.node_index;
  p->measured = false;
  p->flow = 0;
  p->src_qp = 0;  // a CNP is never throttled
  build_cnp(*p, f);
  ledger_.created();
  if (f.vl == kVl15 || f.vl >= ports_[n - 1]->op_vls()) return drop_unsent(p, DropReason::kSlToVlDrop);
  cc_->cnps[n - 1].push_back(p);
  try_send(n);
}

// CNPs go ahead of data (they are what lets the congestion clear), each when its VL has credits.
bool Hca::cc_transmit_cnp(PortNum n) {
  auto& q = cc_->cnps[n - 1];
  if (q.empty()) return false;
  PortOutput& out = senders_[n - 1]->stage;
  Packet* p = q.front();
  const std::uint8_t vl = p->header[0] >> 4;
  if (!out.port().may_send(vl, credits_for_bytes(p->wire_bytes()))) return false;  // on_credits retries
  q.pop_front();
  p->injected = out.send(p);  // outside VL arbitration, like management traffic
  ledger_.injected();
  if (send_observer_) send_observer_->on_injected(*this, *p);
  return true;
}

void Hca::consume_cnp(PortNum n, Packet* p) {
  const Lrh lrh = decode_lrh(p->header.data());
  const Bth bth = decode_bth(p->header.data() + bth_offset(*p));
  if (find_qp(bth.dest_qp)) {
    ++cc_->counters[bth.dest_qp].cnp_received;
    cc_on_becn(n, bth.dest_qp, lrh.sl);
  }
  ledger_.delivered();
  if (observer_) observer_->on_delivered(*this, *p, now());
  ports_[n - 1]->free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
  pool_.release(p);
}

// Puts first in `ring` a QP whose next packet may go now, keeping the others' order; if every QP
// waits for its inter-packet delay, the one that may go soonest (its packet is staged and held).
void Hca::cc_pick_front(PortNum n, std::deque<QueuePair*>& ring) {
  auto ready_at = [&](const QueuePair* q) { return cc_->throttle.ready_at(cc_->throttle.key(q->qpn(), n, q->attr().ah_attr.sl)); };
  std::size_t best = 0;
  Time best_at = kTimeNever;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Time t = ready_at(ring[i]);
    if (t <= now()) {
      best = i;
      break;
    }
    if (t < best_at) best_at = t, best = i;
  }
  if (best == 0) return;
  QueuePair* q = ring[best];
  ring.erase(ring.begin() + static_cast<std::ptrdiff_t>(best));
  ring.push_front(q);
}

}  // namespace ibfsim
