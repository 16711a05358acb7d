#include "sim/transport/queue_pair.h"

#include <cerrno>

#include "sim/core/error.h"
#include "sim/transport/psn.h"
#include "sim/transport/ud_send_packet.h"

namespace ibfsim {

using namespace verbs;

QueuePair::QueuePair(TransportEnv& env, Qpn qpn, PdHandle pd, const ibv_qp_init_attr& init, SharedReceiveQueue* srq)
    : env_(env), qpn_(qpn), pd_(pd), init_(init), srq_(srq) {}

std::unique_ptr<QueuePair> QueuePair::make_generator(TransportEnv& env, Qpn qpn, std::uint32_t q_key) {
  ibv_qp_init_attr init;
  init.qp_type = IBV_QPT_UD;
  auto q = std::make_unique<QueuePair>(env, qpn, 0, init);
  q->generator_ = true;
  q->attr_.qp_state = IBV_QPS_RTS;
  q->attr_.port_num = 1;
  q->attr_.pkey_index = 0;
  q->attr_.qkey = q_key;
  return q;
}

void QueuePair::build_datagram(Packet& p, const Datagram& d, std::uint8_t vl, Lid slid, const std::uint8_t* payload) {
  UdSendFields f;
  f.sl = d.sl;
  f.vl = vl;
  f.dlid = d.dlid;
  f.slid = slid;
  f.dest_qp = d.dest_qp;
  f.psn = next_psn_;
  f.q_key = d.q_key;
  f.src_qp = qpn_;
  next_psn_ = psn_add(next_psn_, 1);
  build_ud_send(p, f, d.bytes, payload);
}

std::uint8_t QueuePair::vl() const { return env_.sl_to_vl(attr_.port_num, attr_.ah_attr.sl); }

int QueuePair::modify(const ibv_qp_attr& a, unsigned mask) {
  const ibv_qp_state cur = attr_.qp_state;
  const ibv_qp_state next = (mask & IBV_QP_STATE) ? a.qp_state : cur;
  if (check_qp_transition(init_.qp_type, cur, next, mask)) return EINVAL;
  if ((mask & IBV_QP_CUR_STATE) && a.cur_qp_state != cur) return EINVAL;
  if ((mask & IBV_QP_PATH_MTU) && (a.path_mtu < IBV_MTU_256 || a.path_mtu > IBV_MTU_4096)) return EINVAL;
  if ((mask & IBV_QP_RETRY_CNT) && a.retry_cnt > 7) return EINVAL;
  if ((mask & IBV_QP_RNR_RETRY) && a.rnr_retry > 7) return EINVAL;
  if ((mask & IBV_QP_TIMEOUT) && a.timeout > 31) return EINVAL;
  if ((mask & IBV_QP_MIN_RNR_TIMER) && a.min_rnr_timer > 31) return EINVAL;
  if ((mask & IBV_QP_MAX_QP_RD_ATOMIC) && a.max_rd_atomic > 16) return EINVAL;
  if ((mask & IBV_QP_MAX_DEST_RD_ATOMIC) && a.max_dest_rd_atomic > 16) return EINVAL;
  // R14: a multicast DLID is for UD only (connected QPs have one peer).
  if ((mask & IBV_QP_AV) && init_.qp_type != IBV_QPT_UD && is_multicast_lid(a.ah_attr.dlid)) return EINVAL;
  if (mask & IBV_QP_PORT) attr_.port_num = a.port_num;
  if (mask & IBV_QP_PKEY_INDEX) attr_.pkey_index = a.pkey_index;
  if (mask & IBV_QP_ACCESS_FLAGS) attr_.qp_access_flags = a.qp_access_flags;
  if (mask & IBV_QP_QKEY) attr_.qkey = a.qkey;
  if (mask & IBV_QP_AV) attr_.ah_attr = a.ah_attr;
  if (mask & IBV_QP_PATH_MTU) attr_.path_mtu = a.path_mtu;
  if (mask & IBV_QP_DEST_QPN) attr_.dest_qp_num = a.dest_qp_num & kQpnMask;
  if (mask & IBV_QP_RQ_PSN) attr_.rq_psn = epsn_ = a.rq_psn & kPsnMask;
  if (mask & IBV_QP_SQ_PSN) attr_.sq_psn = next_psn_ = sent_end_ = a.sq_psn & kPsnMask;
  if (mask & IBV_QP_MAX_DEST_RD_ATOMIC) attr_.max_dest_rd_atomic = a.max_dest_rd_atomic;
  if (mask & IBV_QP_MAX_QP_RD_ATOMIC) attr_.max_rd_atomic = a.max_rd_atomic;
  if (mask & IBV_QP_MIN_RNR_TIMER) attr_.min_rnr_timer = a.min_rnr_timer;
  if (mask & IBV_QP_TIMEOUT) attr_.timeout = a.timeout;
  if (mask & IBV_QP_RETRY_CNT) attr_.retry_cnt = retry_left_ = a.retry_cnt;
  if (mask & IBV_QP_RNR_RETRY) attr_.rnr_retry = rnr_left_ = a.rnr_retry;
  if (next == IBV_QPS_ERR && cur != IBV_QPS_ERR) {
    enter_error();
    return 0;
  }
  if (next == IBV_QPS_RESET) {
    const ibv_qp_attr keep{};
    attr_ = keep;
    sq_.clear();
    rq_.clear();
    responses_.clear();
    send_idx_ = 0, send_pkt_ = 0, rd_atomic_out_ = 0, msn_ = 0;
    msg_active_ = msg_dropping_ = nak_seq_sent_ = rnr_wait_ = resend_pending_ = false;
    clear_out_of_order();
    ++ack_timer_gen_, ++rnr_timer_gen_;
    ack_timer_armed_ = false;
  }
  attr_.qp_state = next;
  if (has_output()) env_.wake(*this);
  return 0;
}

int QueuePair::post_send(const ibv_send_wr& wr, Time ready_at, const ibv_ah_attr* av) {
  if (attr_.qp_state == IBV_QPS_RESET || attr_.qp_state == IBV_QPS_INIT || attr_.qp_state == IBV_QPS_RTR)
    return EINVAL;  // libibverbs: posting sends needs RTS (or later)
  if (sq_.size() >= init_.cap.max_send_wr) return ENOMEM;
  if (wr.sg_list.size() > init_.cap.max_send_sge) return EINVAL;
  const bool rc = init_.qp_type == IBV_QPT_RC;
  const bool ud = init_.qp_type == IBV_QPT_UD;
  switch (wr.opcode) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM: break;
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM:
      if (ud) return EINVAL;
      break;
    case IBV_WR_RDMA_READ:
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
    case IBV_WR_SEND_WITH_INV:  // RC only (IBA Vol1 ch. 9: no UC opcode carries an IETH)
      if (!rc) return EINVAL;
      break;
    case IBV_WR_BIND_MW:
    case IBV_WR_LOCAL_INV:  // memory windows: RC and UC (ibv_bind_mw)
      if (ud) return EINVAL;
      break;
    default: return EINVAL;
  }
  if (ud && av == nullptr) return EINVAL;  // a UD send names an address handle
  SendWqe w;
  w.wr = wr;
  if (av) w.av = *av;
  for (const auto& s : wr.sg_list) w.len += s.length;
  const bool atomic = wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
  if (atomic && w.len != 8) return EINVAL;
  if (ud && w.len > pmtu()) return EINVAL;  // one packet per UD message
  if (w.len > 0x80000000ull) return EINVAL;  // 2^31: the largest IB message
  const bool local = wr.opcode == IBV_WR_BIND_MW || wr.opcode == IBV_WR_LOCAL_INV;
  if (local && !wr.sg_list.empty()) return EINVAL;
  w.npkts = local    ? 0u
            : atomic ? 1u
                     : static_cast<std::uint32_t>(std::max<std::uint64_t>(1, (w.len + pmtu() - 1) / pmtu()));
  w.signaled = init_.sq_sig_all || (wr.send_flags & IBV_SEND_SIGNALED);
  w.ready_at = ready_at;
  // Local protection is checked when the WQE is processed, as hardware does; a bad L_Key then
  // completes with IBV_WC_LOC_PROT_ERR.
  sq_.push_back(std::move(w));
  if (attr_.qp_state == IBV_QPS_ERR) enter_error();  // flushed at once
  return 0;
}

int QueuePair::post_recv(const ibv_recv_wr& wr) {
  if (attr_.qp_state == IBV_QPS_RESET || srq_ != nullptr) return EINVAL;
  if (rq_.size() >= init_.cap.max_recv_wr) return ENOMEM;
  if (wr.sg_list.size() > init_.cap.max_recv_sge) return EINVAL;
  RecvWqe r;
  r.wr = wr;
  for (const auto& s : wr.sg_list) r.len += s.length;
  rq_.push_back(std::move(r));
  if (attr_.qp_state == IBV_QPS_ERR) enter_error();
  return 0;
}

bool QueuePair::has_output() const { return !responses_.empty() || requester_ready(); }

bool QueuePair::build_next(Packet& p) {
  built_inline_ = false;
  if (!responses_.empty()) {
    build_response(p);
    return true;
  }
  built_inline_ = (sq_[send_idx_].wr.send_flags & IBV_SEND_INLINE) != 0;
  return build_request(p);
}

bool QueuePair::from_peer(const ParsedPacket& pp, PortNum arrival) const {
  const ibv_ah_attr& path = attr_.ah_attr;
  if (arrival != attr_.port_num || pp.h.lrh.slid != path.dlid || pp.h.grh.has_value() != path.is_global) return false;
  return !path.is_global || pp.h.grh->sgid == path.grh.dgid;
}

std::optional<DropReason> QueuePair::receive(const ParsedPacket& pp, const Packet& p, PortNum arrival) {
  const ibv_qp_state s = attr_.qp_state;
  if (s == IBV_QPS_RESET || s == IBV_QPS_INIT || s == IBV_QPS_ERR) return std::nullopt;
  if (init_.qp_type == IBV_QPT_UD) return receive_ud(pp, p);
  if (!from_peer(pp, arrival)) return DropReason::kSourceMismatch;
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  const bool response = o >= op::kRdmaReadRespFirst && o <= op::kAtomicAcknowledge;
  if (response) {
    if (s == IBV_QPS_RTS || s == IBV_QPS_SQD) on_response(pp, p);
    return std::nullopt;
  }
  receive_rc_uc(pp, p);
  return std::nullopt;
}

void QueuePair::on_doorbell() {
  if (has_output()) env_.wake(*this);
}

void QueuePair::fill_headers(TransportHeaders& h, std::uint8_t opcode, Psn psn) const {
  const auto& ah = attr_.ah_attr;
  h.lrh.sl = ah.sl;
  h.lrh.vl = vl();
  h.lrh.dlid = ah.dlid;
  h.lrh.slid = static_cast<Lid>(env_.port_lid(attr_.port_num) | ah.src_path_bits);
  if (ah.is_global) {
    Grh g = ah.grh;
    g.sgid = env_.port_grh_source(attr_.port_num).sgid;
    h.grh = g;
  }
  h.bth.opcode = opcode;
  h.bth.p_key = env_.port_p_key(attr_.port_num, attr_.pkey_index);
  h.bth.dest_qp = attr_.dest_qp_num;
  h.bth.psn = psn & kPsnMask;
}

void QueuePair::enter_error() {
  const bool entering = attr_.qp_state != IBV_QPS_ERR;
  attr_.qp_state = IBV_QPS_ERR;
  ++ack_timer_gen_, ++rnr_timer_gen_;
  ack_timer_armed_ = false;
  rnr_wait_ = false;
  responses_.clear();
  msg_active_ = false;
  clear_out_of_order();
  // Everything outstanding completes with IBV_WC_WR_FLUSH_ERR, in order.
  while (!sq_.empty()) complete_front(IBV_WC_WR_FLUSH_ERR);
  send_idx_ = 0, send_pkt_ = 0, rd_atomic_out_ = 0;
  // (With an SRQ, only the WQE the QP took; the SRQ's stay for the other QPs.)
  while (!rq_.empty()) {
    ibv_wc wc;
    wc.wr_id = rq_.front().wr.wr_id;
    wc.status = IBV_WC_WR_FLUSH_ERR;
    wc.opcode = IBV_WC_RECV;
    wc.qp_num = qpn_;
    rq_.pop_front();
    env_.complete(*this, false, wc);
  }
  if (srq_ && entering) {
    // A QP of an SRQ that enters error takes no more of its WQEs: the consumer hears it
    // (IBV_EVENT_QP_LAST_WQE_REACHED) and may then destroy the QP.
    ibv_async_event e;
    e.element.qp_num = qpn_;
    e.event_type = IBV_EVENT_QP_LAST_WQE_REACHED;
    env_.async_event(e);
  }
}

}  // namespace ibfsim
