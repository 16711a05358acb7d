#include "sim/transport/verbs_resources.h"

#include <cerrno>

#include "sim/transport/hca.h"

namespace ibfsim {

std::optional<verbs::ibv_mr> VerbsResources::reg_mr(verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length,
                                                     unsigned access) {
  if (pd == 0 || pd > pds_ || !memory_.contains(addr, length)) return std::nullopt;
  return mrs_.reg(pd, addr, length, access);
}

verbs::CqHandle VerbsResources::create_cq(std::uint32_t cqe) {
  cqs_.push_back(std::make_unique<CompletionQueue>(cqe));
  return static_cast<verbs::CqHandle>(cqs_.size());
}

QueuePair* VerbsResources::create_qp(verbs::PdHandle pd, const verbs::ibv_qp_init_attr& init) {
  if (pd == 0 || pd > pds_ || init.send_cq == 0 || init.send_cq > cqs_.size() || init.recv_cq == 0 ||
      init.recv_cq > cqs_.size())
    return nullptr;
  if (init.qp_type != verbs::IBV_QPT_RC && init.qp_type != verbs::IBV_QPT_UC && init.qp_type != verbs::IBV_QPT_UD)
    return nullptr;
  SharedReceiveQueue* shared = nullptr;
  if (init.srq != 0 && (shared = srq(init.srq)) == nullptr) return nullptr;
  if (shared) shared->attach();
  const Qpn qpn = static_cast<Qpn>(kFirstQpn + qps_.size());
  QpSlot slot;
  slot.qp = std::make_unique<QueuePair>(hca_, qpn, pd, init, shared);
  qps_.push_back(std::move(slot));
  return qps_.back().qp.get();
}

Qpn VerbsResources::create_generator_qp(std::uint32_t q_key) {
  const Qpn qpn = static_cast<Qpn>(kFirstQpn + qps_.size());
  QpSlot slot;
  slot.qp = QueuePair::make_generator(hca_, qpn, q_key);
  qps_.push_back(std::move(slot));
  return qpn;
}

int VerbsResources::modify_qp(QueuePair& q, const verbs::ibv_qp_attr& attr, unsigned mask) {
  if (q.is_generator()) return EINVAL;
  if ((mask & verbs::IBV_QP_PORT) && (attr.port_num < 1 || attr.port_num > hca_.num_ports())) return EINVAL;
  if ((mask & verbs::IBV_QP_PKEY_INDEX) && attr.pkey_index >= hca_.p_keys().size()) return EINVAL;
  return q.modify(attr, mask);
}

int VerbsResources::post_send(QueuePair& q, const verbs::ibv_send_wr& wr) {
  if (q.is_generator()) return EINVAL;
  const verbs::ibv_ah_attr* av = nullptr;
  if (q.type() == verbs::IBV_QPT_UD) {
    // A UD send names an address handle of the QP's PD; its address vector goes into the WQE.
    const AddressHandle* a = ah(wr.ud.ah);
    if (a == nullptr || a->pd != q.pd()) return EINVAL;
    av = &a->attr;
  }
  const Time ready = hca_.now() + hca_.config().doorbell_to_wire;
  const int rc = q.post_send(wr, ready, av);
  if (rc == 0) hca_.schedule<&VerbsResources::doorbell>(ready, this, q.qpn());
  return rc;
}

int VerbsResources::post_recv(QueuePair& q, const verbs::ibv_recv_wr& wr) {
  if (q.is_generator()) return EINVAL;
  return q.post_recv(wr);
}

QpStats VerbsResources::qp_stats() const {
  QpStats t;
  for (const auto& slot : qps_) {
    const QpStats& s = slot.qp->stats();
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
    t.ooo_placed += s.ooo_placed;
    t.ooo_held += s.ooo_held;
    t.ooo_read_responses += s.ooo_read_responses;
  }
  return t;
}

void VerbsResources::arm_timer(QueuePair& q, std::uint8_t kind, Time at, std::uint64_t generation) {
  hca_.schedule<&VerbsResources::qp_timer>(at, this, QpTimer{generation & 0xFFFFFFFFu, q.qpn(), kind});
}

void VerbsResources::complete(QueuePair& q, bool send_side, const verbs::ibv_wc& wc) {
  const Time at = hca_.now() + hca_.config().wire_to_completion;
  completions_.push_back({at, send_side ? q.init_attr().send_cq : q.init_attr().recv_cq, wc});
  hca_.schedule<&VerbsResources::completion_due>(at, this);
}

void VerbsResources::async_event(const verbs::ibv_async_event& e) {
  const Time at = hca_.now() + hca_.config().wire_to_completion;
  async_events_.raise(at, e);
  hca_.schedule<&VerbsResources::async_event_due>(at, this);
}

void VerbsResources::async_event_due() { async_events_.deliver_next(); }

void VerbsResources::doorbell(Qpn qpn) {
  if (QueuePair* q = find(qpn)) q->on_doorbell();
}

void VerbsResources::qp_timer(QpTimer t) {
  if (QueuePair* q = find(t.qpn)) q->on_timer(t.kind, t.generation);
}

void VerbsResources::completion_due() {
  const PendingCompletion c = completions_.front();
  completions_.pop_front();
  CompletionQueue& q = cq(c.cq);
  q.push(c.wc);
  if (q.listener()) q.listener()->on_completion(c.cq, c.wc);
}

std::string VerbsResources::name() const { return std::string(hca_.name()) + "/verbs"; }

}  // namespace ibfsim
