// A verbs flow connected through the Communication Manager (`connect: cm`, verbs_flow.h), as an
// rdma_cm client and server connect: at the flow's start the active side (`from`) moves its QP to
// INIT (posting its receives, ping-pong), resolves its path with a PathRecord query to the SA
// (DGID: the passive port's GID), then its CM agent builds and sends a REQ. The passive side's
// agent, listening on the flow's service ID, takes the REQ up: its QP goes to INIT (receives
// posted) and RTR, and the REP leaves. The REP takes the active QP to RTR and RTS, the RTU leaves
// and the flow's first work request is posted; the RTU takes the passive QP to RTS (a ping-pong
// server answers only then). A REJ or a timeout moves the QPs to the error state: the flow posts
// nothing and reports the outcome.
#include <fmt/format.h>

#include <algorithm>

#include "sim/core/error.h"
#include "sim/subnet_manager/sa/path_record.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

using namespace verbs;

namespace {

// rdma_cm's service IDs: the TCP port space (RDMA_PS_TCP 0x0106) and a port; one port per flow
// from perftest's default port.
constexpr std::uint64_t kRdmaPsTcp = 0x0000000001060000ull;
constexpr std::uint16_t kFirstPort = 18515;

}  // namespace

const char* VerbsFlow::cm_outcome_name(Cm::Outcome o) {
  switch (o) {
    case Cm::Outcome::kPending: return "pending";
    case Cm::Outcome::kEstablished: return "established";
    case Cm::Outcome::kRejected: return "rejected";
    case Cm::Outcome::kTimedOut: return "timed_out";
    case Cm::Outcome::kNoPath: return "no_path";
  }
  return "?";
}

void VerbsFlow::set_cm(CmAgent& active, CmAgent& passive, const CmSpec& spec, std::uint8_t packet_life_time) {
  cm_.emplace();
  cm_->agent[0] = &active;
  cm_->agent[1] = &passive;
  cm_->spec = spec;
  cm_->packet_life_time = packet_life_time;
  cm_->service_id = kRdmaPsTcp | static_cast<std::uint16_t>(kFirstPort + index_);
}

void VerbsFlow::cm_setup() {
  Side& p = sides_[1];
  CmLocal local;
  local.ca_guid = cm_->agent[1]->port_guid();
  local.qpn = p.qp->qpn();
  local.starting_psn = 0;  // as the static connection's (connection())
  local.responder_resources = local.initiator_depth = spec_.qp.max_rd_atomic;
  local.cm_response_timeout = cm_->spec.response_timeout;
  local.max_cm_retries = cm_->spec.max_retries;
  local.srq = srq_ != nullptr;
  cm_->agent[1]->listen(cm_->service_id, local, cm_timeout(cm_->packet_life_time),
                        [this](CmEvent e, const std::vector<CmQpTransition>& qp) { cm_event(1, e, qp); });
}

void VerbsFlow::cm_start() {
  cm_->requested = ScheduledModule::now();
  cm_modify(0, {CmQpStep::kToRtr, 0, 0, 0, 0, 0});  // RESET -> INIT only: see cm_modify
  PathRecord want;
  want.dgid = gid_of(kDefaultGidPrefix, cm_->agent[1]->port_guid());
  want.num_path = 1;
  cm_->agent[0]->sa().query(
      make_sa_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD, IB_PR_COMPMASK_DGID, encode_path_record(want), 0),
      [this](const SaMad* a) { cm_path_answer(a); });
}

void VerbsFlow::cm_path_answer(const SaMad* a) {
  cm_->path_resolved = ScheduledModule::now();
  if (!a || a->header.status != IB_MAD_STATUS_SUCCESS) {
    cm_->outcome = Cm::Outcome::kNoPath;
    sides_[0].stopped = true;
    progress();
    return;
  }
  const PathRecord p = decode_path_record(a->data.data());
  CmReq req;
  req.service_id = cm_->service_id;
  req.remote_cm_response_timeout = cm_->spec.response_timeout;
  req.transport = spec_.type == IBV_QPT_UC ? kCmTransportUc : kCmTransportRc;
  req.retry_count = spec_.qp.retry_cnt;
  req.rnr_retry_count = spec_.qp.rnr_retry;
  req.p_key = p.p_key;
  req.path_mtu = std::min<std::uint8_t>(p.mtu, static_cast<std::uint8_t>(spec_.qp.mtu));
  req.primary.local_lid = p.slid;
  req.primary.remote_lid = p.dlid;
  req.primary.local_gid = p.sgid;
  req.primary.remote_gid = p.dgid;
  req.primary.packet_rate = p.rate;
  req.primary.sl = spec_.sl != 0 ? spec_.sl : p.sl;  // the flow's SL when it names one
  req.primary.local_ack_timeout = spec_.qp.timeout;
  CmLocal local;
  local.ca_guid = cm_->agent[0]->port_guid();
  local.qpn = sides_[0].qp->qpn();
  local.starting_psn = 0;
  local.responder_resources = local.initiator_depth = spec_.qp.max_rd_atomic;
  local.cm_response_timeout = cm_->spec.response_timeout;
  local.max_cm_retries = cm_->spec.max_retries;
  cm_->comm_id = cm_->agent[0]->connect(p.dlid, local, req, cm_timeout(p.packet_life_time),
                                        [this](CmEvent e, const std::vector<CmQpTransition>& qp) { cm_event(0, e, qp); });
}

void VerbsFlow::progress() {
  if (cm_ && cm_->spec.disconnect && cm_->outcome == Cm::Outcome::kEstablished &&
      cm_->disconnect_requested == kTimeNever && traffic_done()) {
    cm_->disconnect_requested = ScheduledModule::now();
    cm_->agent[0]->disconnect(cm_->comm_id);  // rdma_disconnect: the QP to ERR, the DREQ out
  }
  owner_.flow_progress();
}

void VerbsFlow::cm_event(int side, CmEvent e, const std::vector<CmQpTransition>& qp) {
  for (const CmQpTransition& t : qp) cm_modify(side, t);
  switch (e) {
    case CmEvent::kEstablished:
      cm_->established[side] = ScheduledModule::now();
      if (side == 0) {
        cm_->outcome = Cm::Outcome::kEstablished;
        traffic_begin_ = ScheduledModule::now();
        traffic_starts();
      } else {
        post_sends(1);  // a ping-pong server may answer from now on
      }
      break;
    case CmEvent::kRejected:
    case CmEvent::kTimedOut:
      if (side == 1) {
        if (qp.empty()) cm_->passive_refused = true;  // the agent had no room: REJ sent, no QP touched
        break;
      }
      cm_->outcome = e == CmEvent::kRejected ? Cm::Outcome::kRejected : Cm::Outcome::kTimedOut;
      if (e == CmEvent::kRejected) cm_->reject_reason = cm_->agent[0]->connection(cm_->comm_id)->reject_reason();
      sides_[0].stopped = true;
      progress();
      break;
    case CmEvent::kDisconnected:
      cm_->disconnected[side] = ScheduledModule::now();
      progress();
      break;
    default:
      break;
  }
}

// The QP transitions the CM says to make, with the attributes of a static connection (connect())
// and the path the REQ carried. A QP still in RESET goes to INIT first, and its receives are
// posted there (before RTR, as an rdma_cm consumer posts them before connecting or accepting).
void VerbsFlow::cm_modify(int side, const CmQpTransition& t) {
  Side& s = sides_[side];
  Hca& h = *s.hca;
  const bool rc = spec_.type == IBV_QPT_RC;
  ibv_qp_attr at;
  if (s.qp->state() == IBV_QPS_RESET && t.step != CmQpStep::kToError) {
    at.qp_state = IBV_QPS_INIT;
    at.pkey_index = spec_.qp.pkey_index;
    at.port_num = 1;
    at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
    IBFSIM_CHECK(h.modify_qp(*s.qp, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
                 "verbs flow: QP to INIT refused");
    if (s.recvs_wanted > 0) {
      const std::uint64_t n = std::min<std::uint64_t>(spec_.rx_depth, s.recvs_wanted);
      if (spec_.recv_post_delay == 0) post_recvs(side, n);
      else h.schedule<&VerbsFlow::receives_due>(ScheduledModule::now() + spec_.recv_post_delay, this, side, n);
    }
    if (t.remote_lid == 0) return;  // the active side before its path is known: INIT only
  }
  switch (t.step) {
    case CmQpStep::kToRtr: {
      at = ibv_qp_attr{};
      at.qp_state = IBV_QPS_RTR;
      at.path_mtu = static_cast<ibv_mtu>(t.path_mtu);
      at.dest_qp_num = t.remote_qpn;
      at.rq_psn = t.remote_psn;
      at.ah_attr.dlid = t.remote_lid;
      at.ah_attr.sl = t.sl;
      at.ah_attr.port_num = 1;
      at.max_dest_rd_atomic = spec_.qp.max_rd_atomic;
      at.min_rnr_timer = spec_.qp.min_rnr_timer;
      unsigned m = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
      if (rc) m |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
      IBFSIM_CHECK(h.modify_qp(*s.qp, at, m) == 0, "verbs flow: QP to RTR refused");
      cm_->rtr[side] = ScheduledModule::now();
      break;
    }
    case CmQpStep::kToRts: {
      at = ibv_qp_attr{};
      at.qp_state = IBV_QPS_RTS;
      at.sq_psn = 0;  // the starting PSN this side put in its REQ or REP
      at.timeout = spec_.qp.timeout;
      at.retry_cnt = spec_.qp.retry_cnt;
      at.rnr_retry = spec_.qp.rnr_retry;
      at.max_rd_atomic = spec_.qp.max_rd_atomic;
      unsigned m = IBV_QP_STATE | IBV_QP_SQ_PSN;
      if (rc) m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
      IBFSIM_CHECK(h.modify_qp(*s.qp, at, m) == 0, "verbs flow: QP to RTS refused");
      cm_->rts[side] = ScheduledModule::now();
      break;
    }
    case CmQpStep::kToError: {
      if (s.qp->state() == IBV_QPS_RESET || s.qp->state() == IBV_QPS_ERR) break;
      at = ibv_qp_attr{};
      at.qp_state = IBV_QPS_ERR;
      IBFSIM_CHECK(h.modify_qp(*s.qp, at, IBV_QP_STATE) == 0, "verbs flow: QP to ERR refused");
      break;
    }
  }
}

nlohmann::json VerbsFlow::cm_results() const {
  auto t = [](Time x) { return x == kTimeNever ? nlohmann::json(nullptr) : nlohmann::json(static_cast<double>(x) / 1e6); };
  auto since = [&](Time x) {
    return x == kTimeNever || cm_->requested == kTimeNever ? nlohmann::json(nullptr)
                                                           : nlohmann::json(static_cast<double>(x - cm_->requested) / 1e6);
  };
  const CmConnection* c = cm_->comm_id ? cm_->agent[0]->connection(cm_->comm_id) : nullptr;
  nlohmann::json j{{"mode", "cm"},
                   {"service_id", fmt::format("{:#018x}", cm_->service_id)},
                   {"outcome", cm_outcome_name(cm_->outcome)},
                   {"requested_ns", t(cm_->requested)},
                   {"path_query_ns", since(cm_->path_resolved)},
                   {"setup_ns", since(cm_->established[0])},
                   {"passive_setup_ns", since(cm_->established[1])},
                   {"from_rtr_ns", t(cm_->rtr[0])},
                   {"from_rts_ns", t(cm_->rts[0])},
                   {"to_rtr_ns", t(cm_->rtr[1])},
                   {"to_rts_ns", t(cm_->rts[1])},
                   {"disconnect_requested_ns", t(cm_->disconnect_requested)},
                   {"from_disconnected_ns", t(cm_->disconnected[0])},
                   {"to_disconnected_ns", t(cm_->disconnected[1])},
                   {"retries", c ? c->retries() : 0},
                   {"mras_received", c ? c->mras_received() : 0}};
  j["reject_reason"] = cm_->reject_reason ? nlohmann::json(cm_->reject_reason) : nlohmann::json(nullptr);
  return j;
}

}  // namespace ibfsim
