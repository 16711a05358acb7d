// The receive side of a QueuePair (IBA Vol1 ch. 9-10). RC: a request at ePSN executes; one ahead
// of it gets a single NAK PSN-sequence-error and later ones are dropped until ePSN arrives; one
// behind it is a duplicate (re-ACK, re-read, or the saved atomic result, never re-executed).
// SEND without a posted receive gets an RNR NAK; protection failures a NAK Remote Access Error,
// and the QP goes to error. UC: no ACKs; a PSN gap drops the message in progress until the next
// First/Only. UD: Q_Key check, one packet per message, GRH room at the head of the buffer.
// Receive WQEs come from the QP's receive queue or its SRQ (shared_receive_queue.h); a SEND with
// Invalidate invalidates the IETH's R_Key once its data is placed, before its completion.
#include <algorithm>
#include <cstring>

#include "sim/transport/psn.h"
#include "sim/transport/q_key.h"
#include "sim/transport/queue_pair.h"

namespace ibfsim {

using namespace verbs;

namespace {
constexpr std::uint32_t kUdGrhRoom = 40;  // UD receive buffers start with room for a GRH
bool op_has_ieth(std::uint8_t o) { return o == op::kSendLastInvalidate || o == op::kSendOnlyInvalidate; }
bool op_is_first_or_only(std::uint8_t o) {
  return o == op::kSendFirst || o == op::kSendOnly || o == op::kSendOnlyImm || o == op::kSendOnlyInvalidate ||
         o == op::kRdmaWriteFirst || o == op::kRdmaWriteOnly || o == op::kRdmaWriteOnlyImm;
}
bool op_is_send(std::uint8_t o) { return o <= op::kSendOnlyImm || op_has_ieth(o); }
bool op_is_last_or_only(std::uint8_t o) {
  return o == op::kSendLast || o == op::kSendLastImm || o == op::kSendOnly || o == op::kSendOnlyImm ||
         op_has_ieth(o) || o == op::kRdmaWriteLast || o == op::kRdmaWriteLastImm || o == op::kRdmaWriteOnly ||
         o == op::kRdmaWriteOnlyImm;
}
bool op_has_imm(std::uint8_t o) {
  return o == op::kSendLastImm || o == op::kSendOnlyImm || o == op::kRdmaWriteLastImm || o == op::kRdmaWriteOnlyImm;
}
}  // namespace

std::size_t QueuePair::rd_atomic_pending() const {
  std::size_t n = 0;
  for (const auto& r : responses_) n += r.kind == Response::kRead || r.kind == Response::kAtomicAck;
  return n;
}

void QueuePair::queue_response(const Response& response) {
  Response r = response;
  if (becn_offer_ == BecnOffer::kOffered) {
    // The request being received carried FECN: its response carries the BECN.
    r.becn = true;
    becn_offer_ = BecnOffer::kTaken;
  }
  // ACKs are cumulative: a newer one replaces an ACK that has not gone out yet (coalescing).
  if (r.kind == Response::kAck && !responses_.empty() && responses_.back().kind == Response::kAck) {
    const bool becn = responses_.back().becn;
    responses_.back() = r;
    responses_.back().becn |= becn;
    return;
  }
  const bool was_idle = !has_output();
  responses_.push_back(r);
  if (was_idle) env_.wake(*this);
}

void QueuePair::nak(Psn psn, std::uint8_t syndrome, bool to_error) {
  Response r;
  r.kind = Response::kNak;
  r.psn = psn;
  r.syndrome = syndrome;
  // To error first (which drops the responses not yet built): the NAK itself still goes out.
  // (Queued first, it may be built and gone at once, inside queue_response.)
  if (to_error) enter_error();
  queue_response(r);
}

bool QueuePair::take_receive() {
  if (!rq_.empty()) return true;
  if (srq_ == nullptr) return false;
  bool limit_reached = false;
  auto wqe = srq_->take(limit_reached);
  if (!wqe) return false;
  rq_.push_back(std::move(*wqe));
  if (limit_reached) {
    ibv_async_event e;
    e.element.srq = srq_->handle();
    e.event_type = IBV_EVENT_SRQ_LIMIT_REACHED;
    env_.async_event(e);
  }
  return true;
}

bool QueuePair::invalidate_remote(const ParsedPacket& pp) {
  const MwResult r = env_.mrs().invalidate(pp.h.ieth.r_key, pd_, qpn_, true);
  if (r == MwResult::kOk) return true;
  // Not a type 2 window of this QP (a type 1 window, a region, another QP's, no such key): the
  // message is refused as an invalid request and its receive completes in error.
  ibv_wc wc;
  wc.wr_id = rq_.front().wr.wr_id;
  wc.status = IBV_WC_REM_INV_REQ_ERR;
  wc.opcode = IBV_WC_RECV;
  wc.qp_num = qpn_;
  rq_.pop_front();
  env_.complete(*this, false, wc);
  fail_request(pp.h.bth.psn, NakCode::kInvalidRequest);
  return false;
}

std::optional<DropReason> QueuePair::receive_ud(const ParsedPacket& pp, const Packet& p) {
  if (!(pp.ext & kExtDeth)) return DropReason::kMalformed;
  // QP0 takes any Q_Key, QP1 the GSI's; others their own (a mismatch is dropped silently, R36).
  if (!ud_q_key_accepted(qpn_, attr_.qkey, pp.h.deth.q_key)) {
    ++stats_.qkey_violations;
    return DropReason::kQkeyMismatch;
  }
  if (!take_receive()) {
    ++stats_.no_recv_wqe_dropped;
    return std::nullopt;
  }
  RecvWqe r = std::move(rq_.front());
  rq_.pop_front();
  ibv_wc wc;
  wc.wr_id = r.wr.wr_id;
  wc.opcode = IBV_WC_RECV;
  wc.qp_num = qpn_;
  wc.src_qp = pp.h.deth.src_qp;
  wc.slid = pp.h.lrh.slid;
  wc.sl = pp.h.lrh.sl;
  wc.byte_len = p.payload_len + kUdGrhRoom;
  if (pp.h.grh) wc.wc_flags |= IBV_WC_GRH;
  if (pp.ext & kExtImmdt) wc.wc_flags |= IBV_WC_WITH_IMM, wc.imm_data = pp.h.imm;
  if (wc.byte_len > r.len) {
    wc.status = IBV_WC_LOC_LEN_ERR;
  } else if (env_.carry_payload()) {
    if (pp.h.grh) scatter(r.wr.sg_list, 0, p.header.data() + kLrhBytes, kGrhBytes);
    if (!p.payload.empty()) scatter(r.wr.sg_list, kUdGrhRoom, p.payload.data(), p.payload_len);
  }
  env_.complete(*this, false, wc);
  return std::nullopt;
}

void QueuePair::receive_duplicate(const ParsedPacket& pp) {
  ++stats_.duplicates_received;
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  const Psn psn = pp.h.bth.psn;
  if (o == op::kRdmaReadRequest) {
    // Reads are idempotent: read again and resend (from the PSN the requester asks for).
    const Reth& reth = pp.h.reth;
    if (env_.mrs().check_remote(reth.r_key, pd_, qpn_, reth.va, reth.dma_len, IBV_ACCESS_REMOTE_READ) != MrCheck::kOk) return;
    Response r;
    r.kind = Response::kRead;
    r.psn = psn;
    r.va = reth.va;
    r.len = reth.dma_len;
    r.npkts = std::max<std::uint32_t>(1, (reth.dma_len + pmtu() - 1) / pmtu());
    // Drop a pending response for the same range being superseded.
    responses_.erase(std::remove_if(responses_.begin(), responses_.end(),
                                    [&](const Response& x) { return x.kind == Response::kRead && x.psn == psn && x.sent == 0; }),
                     responses_.end());
    queue_response(r);
    return;
  }
  if (o == op::kCmpSwap || o == op::kFetchAdd) {
    for (const auto& s : saved_atomics_) {
      if (s.valid && s.psn == psn) {
        Response r;
        r.kind = Response::kAtomicAck;
        r.psn = psn;
        r.orig = s.orig;
        queue_response(r);
        return;
      }
    }
    return;
  }
  // SEND / WRITE: acknowledge again, cumulatively, up to what has been received.
  Response r;
  r.kind = Response::kAck;
  r.psn = psn_add(epsn_, -1);
  queue_response(r);
}

bool QueuePair::in_sequence(const ParsedPacket& pp) {
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  const Psn psn = pp.h.bth.psn;
  const std::int32_t d = psn_diff(psn, epsn_);
  if (init_.qp_type == IBV_QPT_RC) {
    if (d > 0) {
      ++stats_.out_of_sequence_dropped;
      if (!nak_seq_sent_) {
        ++stats_.naks_seq_sent;
        nak_seq_sent_ = true;
        nak(epsn_, nak_syndrome(NakCode::kPsnSequenceError), false);
      }
      return false;
    }
    if (d < 0) {
      receive_duplicate(pp);
      return false;
    }
    nak_seq_sent_ = false;
  } else if (d != 0) {
    // UC: a gap loses the message in progress; resynchronise on a First/Only (R35).
    if (msg_active_ && !msg_dropping_) ++stats_.uc_messages_dropped;
    msg_active_ = false;
    if (!op_is_first_or_only(o)) {
      ++stats_.out_of_sequence_dropped;
      msg_dropping_ = true;
      return false;
    }
    epsn_ = psn;
  }
  return true;
}

void QueuePair::fail_request(Psn psn, NakCode code) {
  if (code == NakCode::kRemoteAccessError) ++stats_.remote_access_errors;
  if (init_.qp_type != IBV_QPT_RC) {  // UC cannot NAK: drop the message
    ++stats_.uc_messages_dropped;
    msg_active_ = false;
    msg_dropping_ = true;
    epsn_ = psn_add(psn, 1);
    return;
  }
  ++stats_.naks_error_sent;
  nak(psn, nak_syndrome(code), true);
}

void QueuePair::receive_rc_uc(const ParsedPacket& pp, const Packet& p) {
  if (out_of_order()) return receive_rc_out_of_order(pp, p);
  if (!in_sequence(pp)) return;
  execute_request(pp, RequestPayload{p.payload_len, p.payload.empty() ? nullptr : p.payload.data(), false});
}

void QueuePair::execute_request(const ParsedPacket& pp, const RequestPayload& payload) {
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  const Psn psn = pp.h.bth.psn;
  // RDMA READ and atomics (RC only; opcode_layout already refused them on UC).
  if (o == op::kRdmaReadRequest || o == op::kCmpSwap || o == op::kFetchAdd) {
    if (msg_active_) return fail_request(psn, NakCode::kInvalidRequest);
    if (rd_atomic_pending() >= std::max<unsigned>(1, attr_.max_dest_rd_atomic))
      return fail_request(psn, NakCode::kInvalidRequest);  // R33
    if (o == op::kRdmaReadRequest) return receive_read(pp);
    return receive_atomic(pp);
  }
  receive_send_write(pp, payload);
}

void QueuePair::receive_read(const ParsedPacket& pp) {
  const Psn psn = pp.h.bth.psn;
  const std::uint32_t mtu = pmtu();
  const Reth& reth = pp.h.reth;
  if (!(attr_.qp_access_flags & IBV_ACCESS_REMOTE_READ) ||
      env_.mrs().check_remote(reth.r_key, pd_, qpn_, reth.va, reth.dma_len, IBV_ACCESS_REMOTE_READ) != MrCheck::kOk)
    return fail_request(psn, NakCode::kRemoteAccessError);
  Response r;
  r.kind = Response::kRead;
  r.psn = psn;
  r.va = reth.va;
  r.len = reth.dma_len;
  r.npkts = std::max<std::uint32_t>(1, (reth.dma_len + mtu - 1) / mtu);
  epsn_ = psn_add(psn, r.npkts);  // R31
  ++msn_;
  queue_response(r);
}

void QueuePair::receive_atomic(const ParsedPacket& pp) {
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  const Psn psn = pp.h.bth.psn;
  const AtomicEth& a = pp.h.atomic_eth;
  if (a.va % 8 != 0) return fail_request(psn, NakCode::kInvalidRequest);  // R32
  if (!(attr_.qp_access_flags & IBV_ACCESS_REMOTE_ATOMIC) ||
      env_.mrs().check_remote(a.r_key, pd_, qpn_, a.va, 8, IBV_ACCESS_REMOTE_ATOMIC) != MrCheck::kOk)
    return fail_request(psn, NakCode::kRemoteAccessError);
  HostMemory& mem = env_.memory();
  const std::uint64_t orig = mem.load64(a.va);
  if (o == op::kFetchAdd) mem.store64(a.va, orig + a.swap_add);
  else if (orig == a.compare) mem.store64(a.va, a.swap_add);
  saved_atomics_[saved_next_] = {psn, orig, true};
  saved_next_ = (saved_next_ + 1) % saved_atomics_.size();
  epsn_ = psn_add(psn, 1);
  ++msn_;
  Response r;
  r.kind = Response::kAtomicAck;
  r.psn = psn;
  r.orig = orig;
  queue_response(r);
}

void QueuePair::receive_send_write(const ParsedPacket& pp, const RequestPayload& p) {
  const bool rc = init_.qp_type == IBV_QPT_RC;
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  const Psn psn = pp.h.bth.psn;
  const std::uint32_t mtu = pmtu();
  if (op_is_first_or_only(o)) {
    if (msg_active_ && rc) return fail_request(psn, NakCode::kInvalidRequest);  // missing Last
    msg_active_ = false;
    msg_dropping_ = false;
  } else if (!msg_active_ || msg_send_ != op_is_send(o)) {
    if (msg_dropping_ && !rc) {
      epsn_ = psn_add(psn, 1);
      if (op_is_last_or_only(o)) msg_dropping_ = false;
      return;
    }
    return fail_request(psn, NakCode::kInvalidRequest);  // missing First
  }
  // R24: First and Middle carry exactly the PMTU; Last and Only at most.
  if (op_is_last_or_only(o) ? p.len > mtu : p.len != mtu)
    return fail_request(psn, NakCode::kInvalidRequest);
  if (op_is_first_or_only(o) && !start_message(pp)) return;
  // A WRITE with immediate consumes a receive WQE at its end; none posted -> RNR (RC) / drop (UC).
  const bool needs_recv = msg_send_ || op_has_imm(o);
  if (needs_recv && op_is_last_or_only(o) && !take_receive()) {
    if (!rc) {
      ++stats_.no_recv_wqe_dropped;
      msg_active_ = false;
      epsn_ = psn_add(psn, 1);
      return;
    }
    ++stats_.rnr_naks_sent;
    nak(psn, rnr_nak_syndrome(attr_.min_rnr_timer), false);
    return;
  }
  // Place the data.
  const std::uint64_t limit = msg_send_ ? rq_.front().len : msg_reth_.dma_len;
  if (msg_offset_ + p.len > limit) {
    if (msg_send_ && rc) {
      // The message does not fit the receive buffer: local length error here, NAK there.
      ibv_wc wc;
      wc.wr_id = rq_.front().wr.wr_id;
      wc.status = IBV_WC_LOC_LEN_ERR;
      wc.opcode = IBV_WC_RECV;
      wc.qp_num = qpn_;
      rq_.pop_front();
      env_.complete(*this, false, wc);
    }
    return fail_request(psn, NakCode::kInvalidRequest);
  }
  if (carries_bytes() && p.data && !p.placed) {
    if (msg_send_) {
      scatter(rq_.front().wr.sg_list, msg_offset_, p.data, p.len);
    } else {
      std::memcpy(env_.memory().bytes(msg_reth_.va + msg_offset_, p.len), p.data, p.len);
    }
  }
  msg_offset_ += p.len;
  if (op_has_ieth(o) && !invalidate_remote(pp)) return;
  epsn_ = psn_add(psn, 1);
  if (op_is_last_or_only(o)) complete_message(pp, needs_recv);
  if (rc && pp.h.bth.ack_req) {
    Response r;
    r.kind = Response::kAck;
    r.psn = psn;
    queue_response(r);
  }
}

bool QueuePair::start_message(const ParsedPacket& pp) {
  const bool rc = init_.qp_type == IBV_QPT_RC;
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  const Psn psn = pp.h.bth.psn;
  msg_send_ = op_is_send(o);
  msg_offset_ = 0;
  msg_first_psn_ = psn;
  if (msg_send_) {
    if (!take_receive()) {
      if (!rc) {
        ++stats_.no_recv_wqe_dropped;
        msg_dropping_ = !op_is_last_or_only(o);
        epsn_ = psn_add(psn, 1);
        return false;
      }
      // RNR NAK: the requester waits the timer and sends this PSN again (R29).
      ++stats_.rnr_naks_sent;
      nak(psn, rnr_nak_syndrome(attr_.min_rnr_timer), false);
      return false;
    }
  } else {
    msg_reth_ = pp.h.reth;
    if (!(attr_.qp_access_flags & IBV_ACCESS_REMOTE_WRITE) && msg_reth_.dma_len > 0) {
      fail_request(psn, NakCode::kRemoteAccessError);
      return false;
    }
    if (env_.mrs().check_remote(msg_reth_.r_key, pd_, qpn_, msg_reth_.va, msg_reth_.dma_len, IBV_ACCESS_REMOTE_WRITE) !=
        MrCheck::kOk) {
      fail_request(psn, NakCode::kRemoteAccessError);
      return false;
    }
  }
  msg_active_ = true;
  return true;
}

void QueuePair::complete_message(const ParsedPacket& pp, bool needs_recv) {
  const std::uint8_t o = opcode_operation(pp.h.bth.opcode);
  msg_active_ = false;
  ++msn_;
  if (!needs_recv) return;
  ibv_wc wc;
  wc.wr_id = rq_.front().wr.wr_id;
  wc.opcode = msg_send_ ? IBV_WC_RECV : IBV_WC_RECV_RDMA_WITH_IMM;
  wc.qp_num = qpn_;
  wc.src_qp = attr_.dest_qp_num;
  wc.slid = pp.h.lrh.slid;
  wc.sl = pp.h.lrh.sl;
  wc.byte_len = msg_send_ ? static_cast<std::uint32_t>(msg_offset_) : 0;
  if (op_has_imm(o)) wc.wc_flags |= IBV_WC_WITH_IMM, wc.imm_data = pp.h.imm;
  if (op_has_ieth(o)) wc.wc_flags |= IBV_WC_WITH_INV, wc.invalidated_rkey = pp.h.ieth.r_key;
  rq_.pop_front();
  env_.complete(*this, false, wc);
}

bool QueuePair::carry_becn() {
  const BecnOffer offer = becn_offer_;
  becn_offer_ = BecnOffer::kNone;
  if (offer == BecnOffer::kTaken) return true;
  if (init_.qp_type != IBV_QPT_RC || responses_.empty()) return false;
  responses_.back().becn = true;
  return true;
}

void QueuePair::build_response(Packet& p) {
  Response& r = responses_.front();
  TransportHeaders h;
  std::uint32_t payload = 0;
  const std::uint8_t* data = nullptr;
  std::uint8_t o = op::kAcknowledge;
  Psn psn = r.psn;
  bool done = true;
  h.aeth = {ack_syndrome(), msn_};
  switch (r.kind) {
    case Response::kAck: ++stats_.acks_sent; break;
    case Response::kNak: h.aeth.syndrome = r.syndrome; break;
    case Response::kAtomicAck:
      o = op::kAtomicAcknowledge;
      h.atomic_ack_eth = {r.orig};
      ++stats_.acks_sent;
      break;
    case Response::kRead: {
      const std::uint32_t k = r.sent;
      const bool first = k == 0, last = k + 1 == r.npkts;
      o = first && last ? op::kRdmaReadRespOnly
          : first       ? op::kRdmaReadRespFirst
          : last        ? op::kRdmaReadRespLast
                        : op::kRdmaReadRespMiddle;
      const std::uint64_t offset = std::uint64_t{k} * pmtu();
      payload = static_cast<std::uint32_t>(std::min<std::uint64_t>(pmtu(), r.len - offset));
      psn = psn_add(r.psn, k);
      if (env_.carry_payload() && payload > 0) data = env_.memory().bytes(r.va + offset, payload);
      done = last;
      ++r.sent;
      break;
    }
  }
  fill_headers(h, static_cast<std::uint8_t>(kOpcodeRcBase + o), psn);
  h.bth.becn = r.becn;
  r.becn = false;
  ++stats_.packets_sent;
  build_transport_packet(p, h, payload, data);
  if (done) responses_.pop_front();
}

}  // namespace ibfsim
