#include "sim/transport/send_engine.h"

#include "sim/core/error.h"
#include "sim/link/credit_counter.h"
#include "sim/link/lrh.h"
#include "sim/transport/hca.h"

namespace ibfsim {

SendEngine::SendEngine(Hca& hca, PortNum n, const VlArbConfig& arbitration, SendShared& shared)
    : hca_(hca), n_(n), shared_(shared), output_(hca.port(n), *this, arbitration, true) {}

// Inline: on the path of every packet sent.
inline void SendEngine::enqueue(std::uint8_t vl, Packet* p, QueuePair* qp, Time ready, bool pass) {
  queues_[vl].push_back({p, qp, ready, pass});
  if (pass) ++passing_[vl];
  queued_vls_ |= static_cast<std::uint16_t>(1u << vl);
}

inline void SendEngine::inject(Packet* p, std::uint8_t vl, bool vl15_allowed) {
  if ((vl == kVl15 && !vl15_allowed) || (vl != kVl15 && vl >= output_.port().op_vls()))
    return drop_unsent(p, DropReason::kSlToVlDrop);
  enqueue(vl, p, nullptr);
  if (!feeding_) try_send();
}

void SendEngine::wait_for_room(std::uint8_t vl, DatagramFeeder* f, Time arrival) {
  feeders_[vl].push({arrival, feeder_order_++, f});
}

void SendEngine::feed(std::uint8_t vl) {
  auto& waiting = feeders_[vl];
  feeding_ = true;
  while (!waiting.empty() && queues_[vl].size() < kFeedDepth) {
    DatagramFeeder* f = waiting.top().feeder;
    waiting.pop();
    f->feed();  // builds one packet, and may come back to wait for its next message
  }
  feeding_ = false;
}

// --- what fills the send queues ---

std::uint64_t SendEngine::post_datagram(QueuePair& q, const QueuePair::Datagram& d, bool measured,
                                        std::uint16_t flow, Time created) {
  Packet* p = hca_.pool().acquire();
  hca_.stamp_new_packet(*p);
  if (created != kTimeNever) p->created = created;
  p->measured = measured;
  p->flow = flow;
  p->src_qp = q.qpn();
  const bool carry = hca_.carry_payload() && d.payload == nullptr;
  if (carry) {
    payload_.resize(d.bytes);
    for (std::uint32_t i = 0; i < d.bytes; ++i) payload_[i] = payload_pattern_byte(p->id, i);
  }
  const std::uint8_t vl = hca_.sl_to_vl(n_, d.sl);
  q.build_datagram(*p, d, vl, hca_.lid(n_), d.payload ? d.payload : carry ? payload_.data() : nullptr);
  hca_.ledger().created();
  inject(p, vl, false);
  return p->id;
}

std::uint64_t SendEngine::send_raw(const Packet& raw) {
  Packet* p = hca_.pool().acquire();
  *p = raw;
  hca_.stamp_new_packet(*p);
  p->link_seq = 0;
  p->end_pending = false;
  p->may_be_corrupted = false;
  p->received_frame.clear();
  hca_.ledger().created();
  inject(p, lrh_vl(p->header.data()), true);
  return p->id;
}

void SendEngine::drop_unsent(Packet* p, DropReason reason) {
  hca_.ledger().injected();
  hca_.ledger().dropped(reason);
  hca_.pool().release(p);
}

void SendEngine::wake(QueuePair& q) {
  std::uint8_t& in_ring = hca_.verbs_resources().in_ring(q);
  if (in_ring || !q.has_output()) return;
  in_ring = 1;
  const std::uint8_t vl = q.vl();
  rings_[vl].push_back(&q);
  ring_vls_ |= static_cast<std::uint16_t>(1u << vl);
  if (!shared_.pulling) try_send();
}

void SendEngine::pull_from_qps() {
  shared_.pulling = true;
  VerbsResources& qps = hca_.verbs_resources();
  HcaCongestionControl* cc = hca_.congestion_control();
  // Only the VLs whose ring holds QPs: the rings are deques, each a few cache lines to look at.
  for (unsigned v = 0; v <= kMaxDataVls; ++v) {
    if (!(ring_vls_ >> v & 1)) continue;
    auto& ring = rings_[v];
    // One packet staged per VL: QPs take turns, each builds its packet only when it can go next.
    // A response or inline packet (nothing to read from host memory) does not hold the slot: the
    // next packet is staged behind it, its payload DMA overlapping the response's time on the wire.
    while (!ring.empty() && queues_[v].size() == passing_[v] && queues_[v].size() < 2) {
      if (cc) cc->pick_front(n_, ring);
      else if (const HcaDcqcn* d = hca_.dcqcn()) d->pick_front(ring);
      QueuePair* q = ring.front();
      ring.pop_front();
      qps.in_ring(*q) = 0;
      if (!q->has_output()) continue;
      stage_from(*q, static_cast<std::uint8_t>(v));
      // Building may have woken it again (it is then back on a ring already).
      std::uint8_t& in_ring = qps.in_ring(*q);
      if (q->has_output() && !in_ring) {
        in_ring = 1;
        ring.push_back(q);
      }
    }
    if (ring.empty()) ring_vls_ &= static_cast<std::uint16_t>(~(1u << v));
  }
  shared_.pulling = false;
}

void SendEngine::stage_from(QueuePair& q, std::uint8_t v) {
  Packet* p = hca_.pool().acquire();
  if (!q.build_next(*p)) {  // the WQE failed its local checks
    hca_.pool().release(p);
    return;
  }
  hca_.stamp_new_packet(*p);
  p->measured = true;
  p->src_qp = q.qpn();
  hca_.ledger().created();
  if (v == kVl15 || v >= output_.port().op_vls()) return drop_unsent(p, DropReason::kSlToVlDrop);
  const std::uint32_t read = q.last_built_inline() ? 0 : p->payload_len;
  staged_ready_[v] = shared_.dma.transfer(hca_.now(), read);
  enqueue(v, p, &q, staged_ready_[v], read == 0);
}

std::size_t SendEngine::queued() const {
  std::size_t n = 0;
  for (const auto& q : queues_) n += q.size();
  return n;
}

// --- PortOutput::Source ---

void SendEngine::prepare() {
  dma_wait_ = cc_wait_ = kTimeNever;
  if (ring_vls_) pull_from_qps();
}

bool SendEngine::unarbitrated_waiting() const {
  const HcaCongestionControl* cc = hca_.congestion_control();
  return cc && cc->cnp_waiting(n_);
}

PortOutput::Candidacy SendEngine::candidate(std::uint8_t v) {
  const Time now = hca_.now();
  if (queues_[v].front().ready > now) {
    // Its payload is still coming over the host interface.
    dma_wait_ = std::min(dma_wait_, queues_[v].front().ready);
    return PortOutput::Candidacy::kNone;
  }
  const Packet& p = *queues_[v].front().p;
  if (const HcaCongestionControl* cc = hca_.congestion_control()) {
    // Congestion control holds the flow's next packet until its inter-packet delay is over.
    const Time ready_at = cc->ready_at(n_, p);
    if (ready_at > now) {
      cc_wait_ = std::min(cc_wait_, ready_at);
      return PortOutput::Candidacy::kNone;
    }
  }
  if (const HcaDcqcn* d = hca_.dcqcn()) {
    // DCQCN holds a rate-limited QP's next packet until its rate allows it.
    const Time ready_at = d->ready_at(p.src_qp);
    if (ready_at > now) {
      cc_wait_ = std::min(cc_wait_, ready_at);
      return PortOutput::Candidacy::kNone;
    }
  }
  // Ethernet has no credits (and no PFC yet): a packet that is staged may go.
  if (eth_) return PortOutput::Candidacy::kReady;
  return output_.port().may_send(v, credits_for_bytes(p.wire_bytes())) ? PortOutput::Candidacy::kReady
                                                                        : PortOutput::Candidacy::kBlocked;
}

void SendEngine::surveyed() {
  if (dma_wait_ != kTimeNever && !shared_.payload_wake_pending) {
    shared_.payload_wake_pending = true;
    hca_.schedule<&SendEngine::payload_ready>(dma_wait_, this);
  }
  HcaCongestionControl* cc = hca_.congestion_control();
  if (cc && cc_wait_ != kTimeNever) cc->wake(n_, cc_wait_);
  if (HcaDcqcn* d = hca_.dcqcn(); d && cc_wait_ != kTimeNever) d->wake(n_, cc_wait_);
}

bool SendEngine::send_unarbitrated(PortOutput& out) {
  HcaCongestionControl* cc = hca_.congestion_control();
  return cc && cc->transmit_cnp(n_, out);
}

Packet* SendEngine::take(std::uint8_t v) {
  auto& q = queues_[v];
  const Queued next = q.front();
  q.pop_front();
  if (next.pass) --passing_[v];
  if (q.empty()) queued_vls_ &= static_cast<std::uint16_t>(~(1u << v));
  taken_qp_ = next.qp;
  return next.p;
}

void SendEngine::sent(std::uint8_t vl, Packet* p, Time start) {
  p->injected = start;
  HcaCongestionControl* cc = hca_.congestion_control();
  if (cc && p->src_qp != 0) cc->sent(n_, *p);
  if (HcaDcqcn* d = hca_.dcqcn(); d && p->src_qp != 0) d->sent(n_, *p, start);
  hca_.ledger().injected();
  hca_.count_sent(*p);
  if (SendObserver* o = hca_.send_observer()) o->on_injected(hca_, *p);
  if (taken_qp_) taken_qp_->on_transmitted(*p);  // an RC request starts its ACK timer
  if (!feeders_[vl].empty()) feed(vl);  // a packet left: a waiting source builds its next
  // Verbs QPs: stage the next packet now, so that its payload DMA overlaps this packet's time on
  // the wire (a pipelined HCA), rather than starting only once the line is free again.
  if (ring_vls_) pull_from_qps();
}

bool SendEngine::blocked_after_send(std::uint8_t v) {
  const auto& q = queues_[v];
  if (eth_) return false;
  return !q.empty() && !output_.port().may_send(v, credits_for_bytes(q.front().p->wire_bytes()));
}

void SendEngine::drop_own(Packet* p, DropReason reason) {
  hca_.ledger().dropped(reason, true);
  hca_.pool().release(p);
}

void SendEngine::payload_ready() {
  shared_.payload_wake_pending = false;
  for (unsigned i = 1; i <= hca_.num_ports(); ++i) hca_.engine(static_cast<PortNum>(i)).try_send();
}

std::string SendEngine::name() const { return std::string(hca_.name()) + "/" + std::to_string(n_) + "/send"; }

}  // namespace ibfsim
