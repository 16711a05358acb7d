#include "sim/subnet_manager/cm/cm_connection.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

const char* cm_state_name(CmState s) {
  switch (s) {
    case CmState::kIdle: return "idle";
    case CmState::kReqSent: return "REQ sent";
    case CmState::kReqRcvd: return "REQ received";
    case CmState::kRepSent: return "REP sent";
    case CmState::kEstablished: return "established";
    case CmState::kDreqSent: return "DREQ sent";
    case CmState::kTimeWait: return "time wait";
  }
  return "?";
}

CmOutput CmConnection::connect(CmReq req) {
  CmOutput out;
  if (state_ != CmState::kIdle) return out;
  req.local_comm_id = local_.comm_id;
  req.local_ca_guid = local_.ca_guid;
  req.local_qpn = local_.qpn;
  req.starting_psn = local_.starting_psn;
  req.responder_resources = local_.responder_resources;
  req.initiator_depth = local_.initiator_depth;
  req.local_cm_response_timeout = local_.cm_response_timeout;
  req.max_cm_retries = local_.max_cm_retries;
  remote_response_timeout_ = req.remote_cm_response_timeout;
  max_retries_ = req.max_cm_retries;
  retries_ = 0;
  path_remote_lid_ = req.primary.remote_lid;
  path_sl_ = req.primary.sl;
  path_mtu_ = req.path_mtu;
  tid_ = (std::uint64_t{local_.comm_id} << 32) | 1;
  last_sent_ = encode_cm_req(req, tid_);
  state_ = CmState::kReqSent;
  out.send.push_back(last_sent_);
  out.arm_timer = wait(remote_response_timeout_);
  return out;
}

CmOutput CmConnection::on_req(const CmReq& req, const Mad& mad) {
  CmOutput out;
  if (state_ == CmState::kRepSent && req.local_comm_id == remote_comm_id_) {
    out.send.push_back(last_sent_);  // our REP was lost: again
    return out;
  }
  if (state_ != CmState::kIdle) return out;
  if (remote_comm_id_ != 0) {  // this connection has been and gone (given up on): a stale REQ
    CmRej rej;
    rej.local_comm_id = local_.comm_id;
    rej.remote_comm_id = req.local_comm_id;
    rej.reason = kCmRejStaleConnection;
    out.send.push_back(encode_cm_rej(rej, load_be64(mad.data() + 8)));
    return out;
  }
  state_ = CmState::kReqRcvd;
  remote_comm_id_ = req.local_comm_id;
  remote_qpn_ = req.local_qpn;
  remote_response_timeout_ = req.local_cm_response_timeout;
  max_retries_ = req.max_cm_retries;
  retries_ = 0;
  tid_ = load_be64(mad.data() + 8);
  path_remote_lid_ = req.primary.local_lid;  // the REQ's sender
  path_sl_ = req.primary.sl;
  path_mtu_ = req.path_mtu;
  out.qp.push_back(to_rtr(req.local_qpn, req.starting_psn));
  CmRep rep;
  rep.local_comm_id = local_.comm_id;
  rep.remote_comm_id = remote_comm_id_;
  rep.local_qpn = local_.qpn;
  rep.starting_psn = local_.starting_psn;
  rep.responder_resources = std::min(local_.responder_resources, req.initiator_depth);
  rep.initiator_depth = std::min(local_.initiator_depth, req.responder_resources);
  rep.rnr_retry_count = req.rnr_retry_count;
  rep.local_ca_guid = local_.ca_guid;
  rep.srq = local_.srq;
  last_sent_ = encode_cm_rep(rep, tid_);
  state_ = CmState::kRepSent;
  out.send.push_back(last_sent_);
  out.arm_timer = wait(remote_response_timeout_);
  return out;
}

CmOutput CmConnection::on_mad(const Mad& mad) {
  CmOutput out;
  if (mad[1] != IB_MCLASS_COMM_MGMT) return out;
  const std::uint16_t attr = load_be16(mad.data() + 16);
  switch (attr) {
    case IB_MAD_ATTR_CM_REQ:
      return on_req(decode_cm_req(mad), mad);
    case IB_MAD_ATTR_CM_REP: {
      const CmRep rep = decode_cm_rep(mad);
      if (rep.remote_comm_id != local_.comm_id) return out;
      if (state_ == CmState::kEstablished && rep.local_comm_id == remote_comm_id_) {
        out.send.push_back(last_sent_);  // our RTU was lost: again
        return out;
      }
      if (state_ != CmState::kReqSent) return out;
      remote_comm_id_ = rep.local_comm_id;
      remote_qpn_ = rep.local_qpn;
      out.qp.push_back(to_rtr(rep.local_qpn, rep.starting_psn));
      out.qp.push_back({CmQpStep::kToRts, rep.local_qpn, rep.starting_psn});
      last_sent_ = encode_cm_rtu({local_.comm_id, remote_comm_id_}, tid_);
      out.send.push_back(last_sent_);
      out.cancel_timer = true;
      out.event = CmEvent::kEstablished;
      state_ = CmState::kEstablished;
      return out;
    }
    case IB_MAD_ATTR_CM_RTU: {
      const CmRtu rtu = decode_cm_rtu(mad);
      if (state_ != CmState::kRepSent || rtu.remote_comm_id != local_.comm_id) return out;
      out.qp.push_back({CmQpStep::kToRts, remote_qpn_, 0});
      out.cancel_timer = true;
      out.event = CmEvent::kEstablished;
      state_ = CmState::kEstablished;
      return out;
    }
    case IB_MAD_ATTR_CM_MRA: {
      const CmMra mra = decode_cm_mra(mad);
      const bool ours = (state_ == CmState::kReqSent && mra.message_mraed == kCmMsgReq) ||
                        (state_ == CmState::kRepSent && mra.message_mraed == kCmMsgRep);
      if (!ours || mra.remote_comm_id != local_.comm_id) return out;
      ++mras_received_;
      out.arm_timer = wait(mra.service_timeout);
      return out;
    }
    case IB_MAD_ATTR_CM_REJ: {
      const CmRej rej = decode_cm_rej(mad);
      if (rej.remote_comm_id != local_.comm_id ||
          (state_ != CmState::kReqSent && state_ != CmState::kRepSent && state_ != CmState::kReqRcvd))
        return out;
      reject_reason_ = rej.reason;
      out.qp.push_back({CmQpStep::kToError, remote_qpn_, 0});
      out.cancel_timer = true;
      out.event = CmEvent::kRejected;
      state_ = CmState::kIdle;
      return out;
    }
    case IB_MAD_ATTR_CM_DREQ: {
      const CmDreq dreq = decode_cm_dreq(mad);
      if (dreq.remote_comm_id != local_.comm_id) return out;
      if (state_ != CmState::kEstablished && state_ != CmState::kDreqSent && state_ != CmState::kTimeWait) return out;
      // Answered also in TimeWait (our DREP was lost) and in DREQ Sent (both ends disconnect).
      out.send.push_back(encode_cm_drep({local_.comm_id, remote_comm_id_}, load_be64(mad.data() + 8)));
      if (state_ != CmState::kTimeWait) {
        out.qp.push_back({CmQpStep::kToError, remote_qpn_, 0});
        out.arm_timer = 2 * packet_life_;
        out.event = CmEvent::kDisconnected;
        state_ = CmState::kTimeWait;
      }
      return out;
    }
    case IB_MAD_ATTR_CM_DREP: {
      const CmDrep drep = decode_cm_drep(mad);
      if (state_ != CmState::kDreqSent || drep.remote_comm_id != local_.comm_id) return out;
      out.arm_timer = 2 * packet_life_;
      out.event = CmEvent::kDisconnected;
      state_ = CmState::kTimeWait;
      return out;
    }
    default:
      return out;
  }
}

CmOutput CmConnection::disconnect() {
  CmOutput out;
  if (state_ != CmState::kEstablished) return out;
  retries_ = 0;
  ++tid_;
  last_sent_ = encode_cm_dreq({local_.comm_id, remote_comm_id_, remote_qpn_}, tid_);
  out.send.push_back(last_sent_);
  out.qp.push_back({CmQpStep::kToError, remote_qpn_, 0});
  out.arm_timer = wait(remote_response_timeout_);
  state_ = CmState::kDreqSent;
  return out;
}

CmOutput CmConnection::on_timer() {
  if (state_ == CmState::kTimeWait) {
    state_ = CmState::kIdle;
    return {};
  }
  if (state_ == CmState::kReqSent || state_ == CmState::kRepSent || state_ == CmState::kDreqSent)
    return resend_or_give_up();
  return {};
}

CmOutput CmConnection::resend_or_give_up() {
  CmOutput out;
  if (retries_ < max_retries_) {
    ++retries_;
    out.send.push_back(last_sent_);
    out.arm_timer = wait(remote_response_timeout_);
    return out;
  }
  if (state_ == CmState::kDreqSent) {  // no DREP: disconnected anyway
    out.arm_timer = 2 * packet_life_;
    out.event = CmEvent::kDisconnected;
    state_ = CmState::kTimeWait;
    return out;
  }
  CmRej rej;
  rej.local_comm_id = local_.comm_id;
  rej.remote_comm_id = remote_comm_id_;
  rej.message_rejected = state_ == CmState::kReqSent ? kCmMsgOther : kCmMsgRep;
  rej.reason = kCmRejTimeout;
  out.send.push_back(encode_cm_rej(rej, tid_));
  if (state_ == CmState::kRepSent) out.qp.push_back({CmQpStep::kToError, remote_qpn_, 0});
  out.event = CmEvent::kTimedOut;
  state_ = CmState::kIdle;
  return out;
}

}  // namespace ibfsim
