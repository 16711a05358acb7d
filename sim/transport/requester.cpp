// The send side of a QueuePair (IBA Vol1 ch. 9): segmentation at the path MTU, PSNs, and for
// RC the reliability protocol: cumulative ACKs, NAK PSN-sequence-error with go-back-N, RNR NAK
// with its timer and rnr_retry, the local ACK timeout with retry_cnt, READ responses and atomic
// ACKs (which also acknowledge everything before them), and error completions.
#include <algorithm>
#include <cstring>

#include "sim/core/error.h"
#include "sim/transport/cnp.h"
#include "sim/transport/psn.h"
#include "sim/transport/queue_pair.h"
#include "sim/transport/transport_timers.h"

namespace ibfsim {

using namespace verbs;

namespace {
bool is_read(const ibv_send_wr& wr) { return wr.opcode == IBV_WR_RDMA_READ; }
bool is_atomic(const ibv_send_wr& wr) {
  return wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP || wr.opcode == IBV_WR_ATOMIC_FETCH_AND_ADD;
}
bool is_rd_atomic(const ibv_send_wr& wr) { return is_read(wr) || is_atomic(wr); }
bool is_local(const ibv_send_wr& wr) { return wr.opcode == IBV_WR_BIND_MW || wr.opcode == IBV_WR_LOCAL_INV; }

// Packet k of a message: its operation (the opcode within its transport's range), its payload and
// where that starts in the message, and whether it ends the message.
struct RequestPacket {
  std::uint8_t operation = 0;
  std::uint32_t payload = 0;
  std::uint64_t offset = 0;
  bool last_of_message = true;
};

// Packet k of the `npkts` of work request `wr` (a message of `len` bytes) at PMTU `mtu`; the
// extension headers its kind carries (RETH, ImmDt, AtomicETH, IETH) go into h.
RequestPacket request_packet(const ibv_send_wr& wr, std::uint64_t len, std::uint32_t npkts, std::uint32_t k,
                             std::uint32_t mtu, TransportHeaders& h) {
  RequestPacket r;
  const bool imm = wr.opcode == IBV_WR_SEND_WITH_IMM || wr.opcode == IBV_WR_RDMA_WRITE_WITH_IMM;
  const bool inv = wr.opcode == IBV_WR_SEND_WITH_INV;
  switch (wr.opcode) {
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
    case IBV_WR_SEND_WITH_INV:
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM: {
      const bool send = wr.opcode == IBV_WR_SEND || wr.opcode == IBV_WR_SEND_WITH_IMM || inv;
      r.offset = std::uint64_t{k} * mtu;
      r.payload = static_cast<std::uint32_t>(std::min<std::uint64_t>(mtu, len - r.offset));
      const bool first = k == 0, last = k + 1 == npkts;
      r.last_of_message = last;
      if (send) {
        r.operation = first && last ? (imm ? op::kSendOnlyImm : inv ? op::kSendOnlyInvalidate : op::kSendOnly)
                      : first       ? op::kSendFirst
                      : last        ? (imm ? op::kSendLastImm : inv ? op::kSendLastInvalidate : op::kSendLast)
                                    : op::kSendMiddle;
        h.ieth = {wr.invalidate_rkey};
      } else {
        r.operation = first && last ? (imm ? op::kRdmaWriteOnlyImm : op::kRdmaWriteOnly)
                      : first       ? op::kRdmaWriteFirst
                      : last        ? (imm ? op::kRdmaWriteLastImm : op::kRdmaWriteLast)
                                    : op::kRdmaWriteMiddle;
        h.reth = {wr.rdma.remote_addr, wr.rdma.rkey, static_cast<std::uint32_t>(len)};
      }
      h.imm = wr.imm_data;
      break;
    }
    case IBV_WR_RDMA_READ: {
      // A (re)issued READ asks for what has not arrived yet, from the first missing PSN.
      r.operation = op::kRdmaReadRequest;
      const std::uint64_t have = std::uint64_t{k} * mtu;
      h.reth = {wr.rdma.remote_addr + have, wr.rdma.rkey, static_cast<std::uint32_t>(len - have)};
      break;
    }
    case IBV_WR_ATOMIC_CMP_AND_SWP:
    case IBV_WR_ATOMIC_FETCH_AND_ADD:
      r.operation = wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? op::kCmpSwap : op::kFetchAdd;
      h.atomic_eth = {wr.atomic.remote_addr, wr.atomic.rkey,
                      wr.opcode == IBV_WR_ATOMIC_CMP_AND_SWP ? wr.atomic.swap : wr.atomic.compare_add,
                      wr.atomic.compare_add};
      break;
    case IBV_WR_BIND_MW:
    case IBV_WR_LOCAL_INV: break;  // executed locally, never built (execute_local)
  }
  return r;
}

}  // namespace

Psn QueuePair::una() const {
  if (sq_.empty() || !sq_.front().started) return next_psn_;
  return psn_add(sq_.front().first_psn, sq_.front().done_pkts);
}

bool QueuePair::requester_ready() const {
  if (attr_.qp_state != IBV_QPS_RTS || rnr_wait_ || send_idx_ >= sq_.size()) return false;
  const SendWqe& w = sq_[send_idx_];
  if (w.ready_at > env_.now()) return false;
  if (send_pkt_ == 0 && is_rd_atomic(w.wr) && rd_atomic_out_ >= std::max<unsigned>(1, attr_.max_rd_atomic))
    return false;
  if (send_pkt_ == 0 && (w.wr.send_flags & IBV_SEND_FENCE) && rd_atomic_out_ > 0) return false;
  return true;
}

void QueuePair::gather(const SendWqe& w, std::uint64_t offset, std::uint32_t len, std::vector<std::uint8_t>& out) {
  out.resize(len);
  std::uint32_t done = 0;
  for (const auto& s : w.wr.sg_list) {
    if (done == len) break;
    if (offset >= s.length) {
      offset -= s.length;
      continue;
    }
    const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(s.length - offset, len - done));
    std::memcpy(out.data() + done, env_.memory().bytes(s.addr + offset, n), n);
    done += n;
    offset = 0;
  }
}

void QueuePair::scatter(const std::vector<ibv_sge>& sges, std::uint64_t offset, const std::uint8_t* data,
                        std::uint32_t len) {
  std::uint32_t done = 0;
  for (const auto& s : sges) {
    if (done == len) break;
    if (offset >= s.length) {
      offset -= s.length;
      continue;
    }
    const std::uint32_t n = static_cast<std::uint32_t>(std::min<std::uint64_t>(s.length - offset, len - done));
    std::memcpy(env_.memory().bytes(s.addr + offset, n), data + done, n);
    done += n;
    offset = 0;
  }
}

bool QueuePair::start_request(SendWqe& w) {
  // Local protection, checked as the HCA starts on the WQE.
  const unsigned need = is_read(w.wr) || is_atomic(w.wr) ? static_cast<unsigned>(IBV_ACCESS_LOCAL_WRITE) : 0u;
  for (const auto& s : w.wr.sg_list) {
    if (env_.mrs().check_local(s, pd_, need) != MrCheck::kOk) {
      // The QP goes to error; this WQE completes with a protection error, the rest are flushed.
      ibv_wc wc;
      wc.wr_id = w.wr.wr_id;
      wc.status = IBV_WC_LOC_PROT_ERR;
      wc.opcode = wc_opcode(w.wr.opcode);
      wc.qp_num = qpn_;
      sq_.erase(sq_.begin() + static_cast<std::ptrdiff_t>(send_idx_));
      env_.complete(*this, true, wc);
      enter_error();
      return false;
    }
  }
  w.started = true;
  w.first_psn = next_psn_;
  return true;
}

void QueuePair::address_datagram(const SendWqe& w, TransportHeaders& h) const {
  const ibv_send_wr& wr = w.wr;
  const auto& a = w.av;
  h.lrh.sl = a.sl;
  h.lrh.vl = env_.sl_to_vl(attr_.port_num, a.sl);
  h.lrh.dlid = a.dlid;
  h.lrh.slid = static_cast<Lid>(env_.port_lid(attr_.port_num) | a.src_path_bits);
  h.grh.reset();
  if (a.is_global) {
    Grh g = a.grh;
    g.sgid = env_.port_grh_source(attr_.port_num).sgid;
    h.grh = g;
  }
  h.bth.dest_qp = wr.ud.remote_qpn;
  // A controlled Q_Key (bit 31) cannot be sent by an application: the QP's own is used.
  h.deth = {(wr.ud.remote_qkey & 0x80000000u) ? attr_.qkey : wr.ud.remote_qkey, qpn_};
}

bool QueuePair::build_request(Packet& p) {
  SendWqe& w = sq_[send_idx_];
  const bool rc = init_.qp_type == IBV_QPT_RC;
  const bool ud = init_.qp_type == IBV_QPT_UD;
  if (is_local(w.wr)) {
    execute_local(w);
    return false;
  }
  if (!w.started && !start_request(w)) return false;
  const std::uint32_t mtu = pmtu();
  const std::uint32_t k = send_pkt_;
  const Psn psn = psn_add(w.first_psn, k);
  if (psn_diff(psn, next_psn_) != 0) next_psn_ = psn;  // after go-back
  if (psn_diff(sent_end_, psn) <= 0) sent_end_ = psn_add(psn, 1);
  else ++stats_.packets_retransmitted;
  ++stats_.packets_sent;

  TransportHeaders h;
  const std::uint8_t base = ud ? kOpcodeUdBase : rc ? kOpcodeRcBase : kOpcodeUcBase;
  const RequestPacket rp = request_packet(w.wr, w.len, w.npkts, k, mtu, h);
  fill_headers(h, static_cast<std::uint8_t>(base + rp.operation), psn);
  h.bth.se = rp.last_of_message && (w.wr.send_flags & IBV_SEND_SOLICITED);
  if (ud) address_datagram(w, h);
  // RC asks for an ACK at the end of every message (and every READ/atomic is answered anyway).
  h.bth.ack_req = rc && rp.last_of_message && !is_read(w.wr);
  const std::uint8_t* data = nullptr;
  if (carries_bytes() && rp.payload > 0) {
    gather(w, rp.offset, rp.payload, scratch_);
    data = scratch_.data();
  }
  build_transport_packet(p, h, rp.payload, data);

  // Advance.
  const bool whole = is_read(w.wr) || k + 1 >= w.npkts;
  if (whole) {
    if (is_rd_atomic(w.wr)) ++rd_atomic_out_;
    next_psn_ = psn_add(w.first_psn, w.npkts);
    if (psn_diff(sent_end_, next_psn_) < 0) sent_end_ = next_psn_;
    ++send_idx_;
    send_pkt_ = 0;
  } else {
    ++send_pkt_;
    next_psn_ = psn_add(psn, 1);
  }
  if (!rc) {
    // UC and UD complete a WQE once its last packet is handed to the wire.
    if (whole) {
      complete_front(IBV_WC_SUCCESS);
      send_idx_ = 0;
    }
    return true;
  }
  // The local ACK timer starts when the packet goes on the wire (on_transmitted), not now: the
  // packet may yet wait for its payload's DMA, for credits or for the link.
  return true;
}

void QueuePair::on_transmitted(const Packet& p) {
  if (init_.qp_type != IBV_QPT_RC || ack_timer_armed_ || rnr_wait_) return;
  if (attr_.qp_state != IBV_QPS_RTS && attr_.qp_state != IBV_QPS_SQD) return;
  const std::uint8_t o = opcode_operation(bth_opcode(p.header.data() + bth_offset(p)));
  if (o >= op::kRdmaReadRespFirst && o <= op::kAtomicAcknowledge) return;  // a response it owed
  restart_ack_timer(p.injected);
}

void QueuePair::restart_ack_timer() { restart_ack_timer(env_.now()); }

void QueuePair::restart_ack_timer(Time from) {
  ++ack_timer_gen_;
  ack_timer_armed_ = false;
  const Time t = local_ack_timeout(attr_.timeout);
  if (t == kTimeNever || sq_.empty() || !sq_.front().started) return;
  ack_timer_armed_ = true;
  env_.arm_timer(*this, kAckTimer, from + t, ack_timer_gen_);
}

// Completes the oldest WQE with `status` (a CQE if signaled or failed); false if none.
bool QueuePair::complete_front(ibv_wc_status status) {
  if (sq_.empty()) return false;
  SendWqe& w = sq_.front();
  if (w.signaled || status != IBV_WC_SUCCESS) {
    ibv_wc wc;
    wc.wr_id = w.wr.wr_id;
    wc.status = status;
    wc.opcode = wc_opcode(w.wr.opcode);
    wc.qp_num = qpn_;
    if (status == IBV_WC_SUCCESS && (is_read(w.wr) || is_atomic(w.wr))) wc.byte_len = static_cast<std::uint32_t>(w.len);
    env_.complete(*this, true, wc);
  }
  if (is_rd_atomic(w.wr) && send_idx_ > 0 && rd_atomic_out_ > 0) --rd_atomic_out_;
  sq_.pop_front();
  if (send_idx_ > 0) --send_idx_;
  if (status == IBV_WC_SUCCESS) complete_local_front();
  if (attr_.qp_state == IBV_QPS_RTS) env_.wake(*this);
  return true;
}

bool QueuePair::complete_through(Psn psn) {
  bool progress = false;
  if (out_of_order()) {
    // What is acknowledged now, or was before while a READ or atomic still waited for responses.
    if (ooo_acked_valid_ && psn_diff(ooo_acked_, psn) > 0) psn = ooo_acked_;
    ooo_acked_ = psn;
    ooo_acked_valid_ = true;
  }
  while (!sq_.empty() && sq_.front().started && send_idx_ > 0) {
    SendWqe& w = sq_.front();
    const Psn last = psn_add(w.first_psn, w.npkts - 1);
    if (psn_diff(psn, last) < 0) {
      // The ACK ends inside this WQE: part of a multi-packet SEND/WRITE is acknowledged.
      const std::int32_t got = psn_diff(psn, w.first_psn) + 1;
      if (got > 0 && !is_rd_atomic(w.wr) && static_cast<std::uint32_t>(got) > w.done_pkts) {
        w.done_pkts = static_cast<std::uint32_t>(got);
        progress = true;
      }
      break;
    }
    if (is_rd_atomic(w.wr) && out_of_order()) {
      // Out-of-order tolerant: its responses may still be on their way (a loss is the ACK
      // timer's to find). A READ whose responses are all in completes here.
      if (!is_read(w.wr) || w.done_pkts != w.npkts) break;
      complete_front(IBV_WC_SUCCESS);
      progress = true;
      continue;
    }
    if (is_rd_atomic(w.wr)) {
      // An ACK beyond a READ or atomic whose response did not arrive: the response was lost.
      // Ask again from what is missing (implicit NAK).
      ++stats_.implied_naks;
      if (progress) retry_left_ = attr_.retry_cnt, restart_ack_timer();
      go_back(psn_add(w.first_psn, w.done_pkts));
      return true;
    }
    complete_front(IBV_WC_SUCCESS);
    progress = true;
  }
  if (progress) {
    retry_left_ = attr_.retry_cnt;
    resend_pending_ = false;
    restart_ack_timer();
  }
  return false;
}

void QueuePair::go_back(Psn psn) {
  // Find the WQE that holds psn; everything from there is sent again.
  for (std::size_t i = 0; i < sq_.size() && sq_[i].started; ++i) {
    SendWqe& w = sq_[i];
    const std::int32_t k = psn_diff(psn, w.first_psn);
    if (k < 0 || static_cast<std::uint32_t>(k) >= w.npkts) continue;
    send_idx_ = i;
    send_pkt_ = static_cast<std::uint32_t>(k);
    next_psn_ = psn;
    rd_atomic_out_ = 0;
    for (std::size_t j = 0; j < i; ++j) rd_atomic_out_ += is_rd_atomic(sq_[j].wr);
    resend_pending_ = true;
    if (has_output()) env_.wake(*this);
    return;
  }
}

void QueuePair::on_response(const ParsedPacket& pp, const Packet& p) {
  const Psn psn = pp.h.bth.psn;
  // Nothing outstanding, or outside the window: a late copy (of an ACK already made up for).
  if (sq_.empty() || !sq_.front().started || psn_diff(psn, una()) < 0 || psn_diff(psn, sent_end_) >= 0) {
    ++stats_.stale_responses;
    return;
  }
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  if (o == op::kAcknowledge || o == op::kAtomicAcknowledge ||
      ((pp.ext & kExtAeth) && aeth_kind(pp.h.aeth.syndrome) != AethKind::kAck)) {
    const std::uint8_t syn = pp.h.aeth.syndrome;
    switch (aeth_kind(syn)) {
      case AethKind::kAck:
        ++stats_.acks_received;
        if (o == op::kAtomicAcknowledge) {
          if (complete_through(psn_add(psn, -1))) return;
          if (!sq_.empty() && send_idx_ > 0 && sq_.front().first_psn == psn && is_atomic(sq_.front().wr)) {
            SendWqe& w = sq_.front();
            const std::uint64_t orig = pp.h.atomic_ack_eth.orig_data;
            if (!w.wr.sg_list.empty()) {
              std::uint8_t b[8];
              std::memcpy(b, &orig, 8);
              scatter(w.wr.sg_list, 0, b, 8);
            }
            w.done_pkts = 1;
            complete_front(IBV_WC_SUCCESS);
            retry_left_ = attr_.retry_cnt;
            resend_pending_ = false;
            if (out_of_order() && ooo_acked_valid_) complete_through(ooo_acked_);
            restart_ack_timer();
          }
          return;
        }
        complete_through(psn);
        return;
      case AethKind::kRnrNak: {
        ++stats_.rnr_naks_received;
        if (complete_through(psn_add(psn, -1))) return;
        if (attr_.rnr_retry != 7) {
          if (rnr_left_ == 0) {
            ++stats_.rnr_retry_exceeded;
            if (!sq_.empty()) complete_front(IBV_WC_RNR_RETRY_EXC_ERR);
            return enter_error();
          }
          --rnr_left_;
        }
        rnr_wait_ = true;  // before go_back, which would otherwise resend at once
        go_back(psn);
        ++ack_timer_gen_;
        ack_timer_armed_ = false;
        env_.arm_timer(*this, kRnrTimer, env_.now() + rnr_timer(aeth_value(syn)), ++rnr_timer_gen_);
        return;
      }
      case AethKind::kNak: {
        if (complete_through(psn_add(psn, -1))) return;
        const auto code = static_cast<NakCode>(aeth_value(syn));
        if (code == NakCode::kPsnSequenceError) {
          ++stats_.naks_seq_received;
          // Go-back-N (R27). retry_cnt is not charged: the responder told us exactly what to do.
          go_back(psn);
          return;
        }
        ++stats_.naks_error_received;
        const ibv_wc_status st = code == NakCode::kRemoteAccessError  ? IBV_WC_REM_ACCESS_ERR
                                 : code == NakCode::kInvalidRequest ? IBV_WC_REM_INV_REQ_ERR
                                                                      : IBV_WC_REM_OP_ERR;
        if (!sq_.empty()) complete_front(st);
        return enter_error();
      }
      case AethKind::kReserved: ++stats_.stale_responses; return;
    }
    return;
  }
  // RDMA READ response.
  if (o < op::kRdmaReadRespFirst || o > op::kRdmaReadRespOnly) return;
  // Find the READ it belongs to; requests before it are implicitly acknowledged.
  std::size_t i = 0;
  while (i < send_idx_ && i < sq_.size()) {
    const SendWqe& w = sq_[i];
    const std::int32_t k = psn_diff(psn, w.first_psn);
    if (k >= 0 && static_cast<std::uint32_t>(k) < w.npkts) break;
    ++i;
  }
  if (i >= send_idx_ || i >= sq_.size() || !is_read(sq_[i].wr)) {
    ++stats_.stale_responses;
    return;
  }
  if (i > 0) {
    const Psn first = sq_[i].first_psn;
    if (complete_through(psn_add(first, -1))) return;  // went back instead
    // Out of order, an earlier READ or atomic may still wait: find this READ again.
    i = 0;
    while (i < sq_.size() && sq_[i].first_psn != first) ++i;
    if (i == sq_.size()) return;
  }
  SendWqe& w = sq_[i];
  const std::uint32_t k = static_cast<std::uint32_t>(psn_diff(psn, w.first_psn));
  if (out_of_order()) {
    if (w.got.empty()) w.got.assign(w.npkts, false), std::fill_n(w.got.begin(), w.done_pkts, true);
    if (w.got[k]) {
      ++stats_.stale_responses;
      return;
    }
    if (k != w.done_pkts) ++stats_.ooo_read_responses;
    if (env_.carry_payload() && !p.payload.empty())
      scatter(w.wr.sg_list, std::uint64_t{k} * pmtu(), p.payload.data(), p.payload_len);
    w.got[k] = true;
    while (w.done_pkts < w.npkts && w.got[w.done_pkts]) ++w.done_pkts;
    resend_pending_ = false;
    retry_left_ = attr_.retry_cnt;
    // A READ wholly answered acknowledges everything up to its last PSN.
    if (w.done_pkts == w.npkts) complete_through(psn_add(w.first_psn, w.npkts - 1));
    restart_ack_timer();
    return;
  }
  if (k != w.done_pkts) {
    // Out of order: a response was lost. Re-read from the first missing one, once.
    if (!resend_pending_) ++stats_.implied_naks, go_back(psn_add(w.first_psn, w.done_pkts));
    return;
  }
  const std::uint64_t offset = std::uint64_t{k} * pmtu();
  if (env_.carry_payload() && !p.payload.empty()) scatter(w.wr.sg_list, offset, p.payload.data(), p.payload_len);
  ++w.done_pkts;
  resend_pending_ = false;
  retry_left_ = attr_.retry_cnt;
  if (w.done_pkts == w.npkts) complete_front(IBV_WC_SUCCESS);
  restart_ack_timer();
}

void QueuePair::on_timer(std::uint8_t kind, std::uint64_t generation) {
  if (attr_.qp_state == IBV_QPS_ERR || attr_.qp_state == IBV_QPS_RESET) return;
  if (kind == kRnrTimer) {
    if (generation != (rnr_timer_gen_ & 0xFFFFFFFFu) || !rnr_wait_) return;
    rnr_wait_ = false;
    if (has_output()) env_.wake(*this);
    return;
  }
  if (generation != (ack_timer_gen_ & 0xFFFFFFFFu) || !ack_timer_armed_) return;
  ack_timer_armed_ = false;
  if (sq_.empty() || !sq_.front().started) return;
  ++stats_.ack_timeouts;
  if (retry_left_ == 0) {
    ++stats_.retry_exceeded;
    complete_front(IBV_WC_RETRY_EXC_ERR);
    return enter_error();
  }
  --retry_left_;
  go_back(una());
  resend_pending_ = false;
  // The timer runs again from when the first packet sent again is on the wire (on_transmitted).
}

}  // namespace ibfsim
