#include "sim/workload/rkey_guessing.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace ibfsim {

using namespace verbs;

namespace {
constexpr std::uint32_t kGuessBytes = 64;

// RESET -> INIT -> RTR -> RTS toward (dlid, dest_qpn), PSNs 0, as a verbs flow connects.
void connect(Hca& h, QueuePair& qp, Lid dlid, Qpn dest_qpn, std::uint16_t pkey_index) {
  ibv_qp_attr at;
  at.qp_state = IBV_QPS_INIT;
  at.pkey_index = pkey_index;
  at.port_num = 1;
  at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_ATOMIC;
  IBFSIM_CHECK(h.modify_qp(qp, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
               "rkey_guess: QP to INIT refused");
  at.qp_state = IBV_QPS_RTR;
  at.path_mtu = IBV_MTU_4096;
  at.dest_qp_num = dest_qpn;
  at.rq_psn = 0;
  at.ah_attr.dlid = dlid;
  at.ah_attr.port_num = 1;
  at.max_dest_rd_atomic = 1;
  at.min_rnr_timer = 12;
  IBFSIM_CHECK(h.modify_qp(qp, at,
                           IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                               IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) == 0,
               "rkey_guess: QP to RTR refused");
  at.qp_state = IBV_QPS_RTS;
  at.sq_psn = 0;
  at.timeout = 14;
  at.retry_cnt = 7;
  at.rnr_retry = 7;
  at.max_rd_atomic = 1;
  IBFSIM_CHECK(h.modify_qp(qp, at,
                           IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                               IBV_QP_MAX_QP_RD_ATOMIC) == 0,
               "rkey_guess: QP to RTS refused");
}
}  // namespace

RkeyGuessing::RkeyGuessing(const AttackSpec& spec, Hca& attacker, Hca& victim, const VerbsFlow::Connection& target,
                           VerbsFlowOwner* owner)
    : Attack(spec), attacker_(attacker), victim_(victim), target_(target), owner_(owner) {}

void RkeyGuessing::setup(Time begin) {
  const std::uint64_t n = spec_.packets;
  const PdHandle pd = attacker_.alloc_pd();
  cq_ = attacker_.create_cq(static_cast<std::uint32_t>(n + 16));
  attacker_.cq(cq_).set_listener(this);
  const std::uint64_t buf = attacker_.alloc_host_memory(kGuessBytes);
  if (attacker_.carry_payload()) {
    std::uint8_t* b = attacker_.memory().bytes(buf, kGuessBytes);
    std::fill(b, b + kGuessBytes, std::uint8_t{0xEE});
  }
  const auto mr = attacker_.reg_mr(pd, buf, kGuessBytes, IBV_ACCESS_LOCAL_WRITE);
  IBFSIM_CHECK(mr.has_value(), "rkey_guess: ibv_reg_mr refused the attacker's buffer");
  local_mr_ = *mr;
  const CqHandle their_cq = victim_.create_cq(static_cast<std::uint32_t>(n + 16));
  for (std::uint64_t k = 0; k < n; ++k) {
    ibv_qp_init_attr init;
    init.qp_type = IBV_QPT_RC;
    init.send_cq = init.recv_cq = cq_;
    init.cap.max_send_wr = 1;
    init.cap.max_recv_wr = 1;
    mine_.push_back(attacker_.create_qp(pd, init));
    init.send_cq = init.recv_cq = their_cq;
    theirs_.push_back(victim_.create_qp(target_.responder_pd, init));
    IBFSIM_CHECK(mine_.back() && theirs_.back(), "rkey_guess: create_qp failed");
    connect(attacker_, *mine_.back(), victim_.lid(), theirs_.back()->qpn(), 0);
    connect(victim_, *theirs_.back(), attacker_.lid(), mine_.back()->qpn(), 0);
    attacker_.schedule<&RkeyGuessing::attempt_due>(begin + k * spec_.interval, this, k);
  }
}

void RkeyGuessing::attempt_due(std::uint64_t k) {
  ibv_send_wr wr;
  wr.wr_id = k;
  wr.opcode = IBV_WR_RDMA_WRITE;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list.push_back(ibv_sge{local_mr_.addr, kGuessBytes, local_mr_.lkey});
  wr.rdma.remote_addr = target_.target_va;
  wr.rdma.rkey = guess(k);
  IBFSIM_CHECK(attacker_.post_send(*mine_[k], wr) == 0, "rkey_guess: ibv_post_send refused");
  ++posted_;
}

void RkeyGuessing::on_completion(CqHandle, const ibv_wc& wc) {
  ++statuses_[wc.status];
  ++completed_;
  if (done() && owner_) owner_->flow_progress();
}

nlohmann::json RkeyGuessing::results() const {
  nlohmann::json j = common_results();
  std::uint64_t mine_err = 0, theirs_err = 0, access_errors = 0;
  for (const QueuePair* q : mine_) mine_err += q->state() == IBV_QPS_ERR;
  for (const QueuePair* q : theirs_) {
    theirs_err += q->state() == IBV_QPS_ERR;
    access_errors += q->stats().remote_access_errors;
  }
  nlohmann::json completions = nlohmann::json::object();
  for (const auto& [status, count] : statuses_) completions[wc_status_str(static_cast<ibv_wc_status>(status))] = count;
  j["attempts"] = posted_;
  j["first_guess"] = guess(0);
  j["last_guess"] = guess(spec_.packets - 1);
  j["completions"] = completions;
  j["hits"] = statuses_.count(IBV_WC_SUCCESS) ? statuses_.at(IBV_WC_SUCCESS) : 0;
  j["attacker_qps_in_error"] = mine_err;
  j["target_qps_in_error"] = theirs_err;
  j["target_remote_access_errors"] = access_errors;
  return j;
}

std::string RkeyGuessing::summary() const {
  const std::uint64_t hits = statuses_.count(IBV_WC_SUCCESS) ? statuses_.at(IBV_WC_SUCCESS) : 0;
  return fmt::format("attack {} (rkey_guess from {} on {}): {} attempts, {} hit", spec_.name, spec_.from,
                     spec_.target, posted_, hits);
}

}  // namespace ibfsim
