// A verbs flow's setup (verbs_flow.h): on each side a PD, CQs, a QP and the memory its messages
// come from, land in or are received into (with data checking, filled with a pattern and kept to
// compare at the end; a guard page after each region), then the QPs connected RESET -> INIT ->
// RTR -> RTS at time 0 and the flow's start and first receives scheduled.
#include <algorithm>
#include <limits>

#include "sim/core/error.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

using namespace verbs;

namespace {

constexpr std::uint32_t kGuardBytes = 4096;  // unregistered memory after each region: must stay untouched

ibv_mr registered(const std::optional<ibv_mr>& mr) {
  IBFSIM_CHECK(mr.has_value(), "verbs flow: ibv_reg_mr refused a region");
  return *mr;
}

}  // namespace

void VerbsFlow::setup() {
  for (int i = 0; i < 2; ++i) setup_side(i);
  if (cm_) {  // connected, and receives posted, as the CM exchange goes
    sides_[0].hca->schedule<&VerbsFlow::flow_starts>(begin_, this);
    return cm_setup();
  }
  connect(sides_[0], sides_[1]);
  connect(sides_[1], sides_[0]);
  sides_[0].hca->schedule<&VerbsFlow::flow_starts>(begin_, this);
  for (int i = 0; i < 2; ++i)
    if (sides_[i].recvs_wanted > 0) {
      const std::uint64_t n = std::min<std::uint64_t>(spec_.rx_depth, sides_[i].recvs_wanted);
      sides_[i].hca->schedule<&VerbsFlow::receives_due>(begin_ + spec_.recv_post_delay, this, i, n);
    }
}

void VerbsFlow::setup_side(int i) {
  const bool two_way = ping_pong();
  const bool remote_mem = verb_is_write(spec_.verb) || spec_.verb == Verb::kRead || verb_is_atomic(spec_.verb);
  const std::uint32_t msg = spec_.message_size;
  Side& s = sides_[i];
  Hca& h = *s.hca;
  const bool shared = i == 1 && srq_ != nullptr;  // the server's SRQ: its PD, its receives
  s.pd = shared ? srq_->pd() : h.alloc_pd();
  s.send_cq = h.create_cq(spec_.tx_depth + 16);
  s.recv_cq = h.create_cq(spec_.rx_depth + 16);
  s.send_listener.flow = s.recv_listener.flow = this;
  s.send_listener.side = s.recv_listener.side = i;
  s.recv_listener.recv = true;
  h.cq(s.send_cq).set_listener(&s.send_listener);
  h.cq(s.recv_cq).set_listener(&s.recv_listener);
  ibv_qp_init_attr init;
  init.send_cq = s.send_cq;
  init.recv_cq = s.recv_cq;
  init.qp_type = spec_.type;
  init.cap.max_send_wr = spec_.tx_depth;
  init.cap.max_recv_wr = spec_.rx_depth;
  if (shared) init.srq = srq_->handle();
  s.qp = h.create_qp(s.pd, init);
  IBFSIM_CHECK(s.qp != nullptr, "verbs flow: create_qp failed");

  const bool sends = i == 0 || two_way;
  const std::uint32_t unit = verb_is_atomic(spec_.verb) ? 8 : msg;
  if (sends) {
    const std::uint64_t len = std::max<std::uint64_t>(1, std::uint64_t{slots()} * unit);
    s.local = h.alloc_host_memory(len);
    s.local_mr = registered(h.reg_mr(s.pd, s.local, len, IBV_ACCESS_LOCAL_WRITE));
  }
  const bool is_target = remote_mem && (i == 1 || (two_way && verb_is_write(spec_.verb)));
  if (is_target) setup_target(i);
  const bool receives = verb_needs_recv(spec_.verb) && (i == 1 || two_way) && !shared;
  if (receives && verb_is_send(spec_.verb)) setup_recv_buffers(i);
  if (receives) s.recvs_wanted = spec_.duration ? std::numeric_limits<std::uint64_t>::max() : spec_.iterations;
}

void VerbsFlow::setup_target(int i) {
  const std::uint32_t msg = spec_.message_size;
  Side& s = sides_[i];
  Hca& h = *s.hca;
  s.target_len = verb_is_atomic(spec_.verb) ? 8 : std::max<std::uint64_t>(1, std::uint64_t{slots()} * msg);
  s.target = h.alloc_host_memory(s.target_len + kGuardBytes);
  unsigned access = IBV_ACCESS_LOCAL_WRITE;
  if (verb_is_write(spec_.verb)) access |= IBV_ACCESS_REMOTE_WRITE;
  if (spec_.verb == Verb::kRead) access |= IBV_ACCESS_REMOTE_READ;
  if (verb_is_atomic(spec_.verb)) access |= IBV_ACCESS_REMOTE_ATOMIC;
  if (i == 1 && spec_.remote.access) access = *spec_.remote.access;
  // Through a window only: the region grants local write and window binding, nothing remote.
  if (i == 1 && window_) access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND;
  s.target_mr = registered(h.reg_mr(s.pd, s.target, s.target_len, access));
  if (i == 1 && window_) window_setup(s);
  std::uint8_t* t = h.memory().bytes(s.target, s.target_len + kGuardBytes);
  if (data_check_) {
    fill_message(t, key(i) ^ 0xCA11AB1Eull, ~0ull, static_cast<std::uint32_t>(s.target_len + kGuardBytes));
    if (spec_.verb == Verb::kRead)
      for (std::uint32_t k = 0; k < slots(); ++k) fill_message(t + std::uint64_t{k} * msg, key(i) ^ 0x5EAD, k, msg);
  }
  if (verb_is_atomic(spec_.verb)) h.memory().store64(s.target, atomic_initial());
  if (data_check_) s.target_initial.assign(t, t + s.target_len + kGuardBytes);
  target_last_[i].assign(slots(), -1);
}

void VerbsFlow::setup_recv_buffers(int i) {
  Side& s = sides_[i];
  Hca& h = *s.hca;
  s.recv_len = std::max<std::uint64_t>(1, std::uint64_t{rslots()} * recv_slot_bytes());
  s.recv = h.alloc_host_memory(s.recv_len + kGuardBytes);
  s.recv_mr = registered(h.reg_mr(s.pd, s.recv, s.recv_len, IBV_ACCESS_LOCAL_WRITE));
  if (data_check_) {
    std::uint8_t* r = h.memory().bytes(s.recv, s.recv_len + kGuardBytes);
    fill_message(r, key(i) ^ 0xCA11AB1Eull, ~0ull, static_cast<std::uint32_t>(s.recv_len + kGuardBytes));
    s.recv_initial.assign(r, r + s.recv_len + kGuardBytes);
  }
  recv_last_[i].assign(rslots(), -1);
}

verbs::ibv_ah_attr VerbsFlow::address_of_peer(int side) const {
  const Side& s = sides_[side];
  if (s.peer_address) return *s.peer_address;
  verbs::ibv_ah_attr ah;
  ah.dlid = sides_[1 - side].hca->lid();
  ah.sl = spec_.sl;
  ah.port_num = 1;
  return ah;
}

void VerbsFlow::connect(Side& s, Side& peer) {
  Hca& h = *s.hca;
  const bool rc = spec_.type == IBV_QPT_RC, ud = spec_.type == IBV_QPT_UD;
  ibv_qp_attr at;
  at.qp_state = IBV_QPS_INIT;
  at.pkey_index = spec_.qp.pkey_index;
  at.port_num = 1;
  at.qkey = spec_.qp.q_key;
  at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
  unsigned m = IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | (ud ? IBV_QP_QKEY : IBV_QP_ACCESS_FLAGS);
  IBFSIM_CHECK(h.modify_qp(*s.qp, at, m) == 0, "verbs flow: QP to INIT refused");
  if (ud) {
    s.peer_ah = h.create_ah(s.pd, address_of_peer(&s == &sides_[0] ? 0 : 1));
    IBFSIM_CHECK(s.peer_ah != 0, "verbs flow: ibv_create_ah refused");
  }
  at.qp_state = IBV_QPS_RTR;
  m = IBV_QP_STATE;
  if (!ud) {
    at.path_mtu = spec_.qp.mtu;
    at.dest_qp_num = peer.qp->qpn();
    at.rq_psn = 0;
    at.ah_attr = address_of_peer(&s == &sides_[0] ? 0 : 1);
    at.max_dest_rd_atomic = spec_.qp.max_rd_atomic;
    at.min_rnr_timer = spec_.qp.min_rnr_timer;
    m |= IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (rc) m |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  }
  IBFSIM_CHECK(h.modify_qp(*s.qp, at, m) == 0, "verbs flow: QP to RTR refused");
  at.qp_state = IBV_QPS_RTS;
  at.sq_psn = 0;
  at.timeout = spec_.qp.timeout;
  at.retry_cnt = spec_.qp.retry_cnt;
  at.rnr_retry = spec_.qp.rnr_retry;
  at.max_rd_atomic = spec_.qp.max_rd_atomic;
  m = IBV_QP_STATE | IBV_QP_SQ_PSN;
  if (rc) m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
  IBFSIM_CHECK(h.modify_qp(*s.qp, at, m) == 0, "verbs flow: QP to RTS refused");
}

VerbsFlow::Connection VerbsFlow::connection() const {
  const Side& req = sides_[0];
  const Side& resp = sides_[1];
  Connection c;
  c.requester_lid = req.hca->lid();
  c.responder_lid = resp.hca->lid();
  c.requester_qpn = req.qp->qpn();
  c.responder_qpn = resp.qp->qpn();
  c.initial_psn = 0;  // rq_psn and sq_psn of connect()
  c.p_key = resp.hca->port_p_key(1, spec_.qp.pkey_index);
  c.sl = spec_.sl;
  c.pmtu = verbs::mtu_bytes(spec_.qp.mtu);
  c.target_va = resp.target;
  c.target_len = resp.target_len;
  c.rkey = resp.target_mr.rkey;
  c.responder_pd = resp.pd;
  return c;
}

}  // namespace ibfsim
