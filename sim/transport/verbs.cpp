#include "sim/transport/verbs.h"

namespace ibfsim::verbs {

const char* qp_state_str(ibv_qp_state s) {
  switch (s) {
    case IBV_QPS_RESET: return "RESET";
    case IBV_QPS_INIT: return "INIT";
    case IBV_QPS_RTR: return "RTR";
    case IBV_QPS_RTS: return "RTS";
    case IBV_QPS_SQD: return "SQD";
    case IBV_QPS_SQE: return "SQE";
    case IBV_QPS_ERR: return "ERR";
  }
  return "?";
}

const char* wr_opcode_str(ibv_wr_opcode o) {
  switch (o) {
    case IBV_WR_RDMA_WRITE: return "IBV_WR_RDMA_WRITE";
    case IBV_WR_RDMA_WRITE_WITH_IMM: return "IBV_WR_RDMA_WRITE_WITH_IMM";
    case IBV_WR_SEND: return "IBV_WR_SEND";
    case IBV_WR_SEND_WITH_IMM: return "IBV_WR_SEND_WITH_IMM";
    case IBV_WR_RDMA_READ: return "IBV_WR_RDMA_READ";
    case IBV_WR_ATOMIC_CMP_AND_SWP: return "IBV_WR_ATOMIC_CMP_AND_SWP";
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return "IBV_WR_ATOMIC_FETCH_AND_ADD";
    case IBV_WR_LOCAL_INV: return "IBV_WR_LOCAL_INV";
    case IBV_WR_BIND_MW: return "IBV_WR_BIND_MW";
    case IBV_WR_SEND_WITH_INV: return "IBV_WR_SEND_WITH_INV";
  }
  return "?";
}

ibv_wc_opcode wc_opcode(ibv_wr_opcode o) {
  switch (o) {
    case IBV_WR_RDMA_WRITE:
    case IBV_WR_RDMA_WRITE_WITH_IMM: return IBV_WC_RDMA_WRITE;
    case IBV_WR_RDMA_READ: return IBV_WC_RDMA_READ;
    case IBV_WR_ATOMIC_CMP_AND_SWP: return IBV_WC_COMP_SWAP;
    case IBV_WR_ATOMIC_FETCH_AND_ADD: return IBV_WC_FETCH_ADD;
    case IBV_WR_BIND_MW: return IBV_WC_BIND_MW;
    case IBV_WR_LOCAL_INV: return IBV_WC_LOCAL_INV;
    case IBV_WR_SEND:
    case IBV_WR_SEND_WITH_IMM:
    case IBV_WR_SEND_WITH_INV: return IBV_WC_SEND;
  }
  return IBV_WC_SEND;
}

const char* wc_status_str(ibv_wc_status s) {
  static const char* const names[] = {
      "IBV_WC_SUCCESS",          "IBV_WC_LOC_LEN_ERR",       "IBV_WC_LOC_QP_OP_ERR",   "IBV_WC_LOC_EEC_OP_ERR",
      "IBV_WC_LOC_PROT_ERR",     "IBV_WC_WR_FLUSH_ERR",      "IBV_WC_MW_BIND_ERR",     "IBV_WC_BAD_RESP_ERR",
      "IBV_WC_LOC_ACCESS_ERR",   "IBV_WC_REM_INV_REQ_ERR",   "IBV_WC_REM_ACCESS_ERR",  "IBV_WC_REM_OP_ERR",
      "IBV_WC_RETRY_EXC_ERR",    "IBV_WC_RNR_RETRY_EXC_ERR", "IBV_WC_LOC_RDD_VIOL_ERR", "IBV_WC_REM_INV_RD_REQ_ERR",
      "IBV_WC_REM_ABORT_ERR",    "IBV_WC_INV_EECN_ERR",      "IBV_WC_INV_EEC_STATE_ERR", "IBV_WC_FATAL_ERR",
      "IBV_WC_RESP_TIMEOUT_ERR", "IBV_WC_GENERAL_ERR"};
  const auto i = static_cast<unsigned>(s);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

const char* event_type_str(ibv_event_type e) {
  static const char* const names[] = {
      "IBV_EVENT_CQ_ERR",        "IBV_EVENT_QP_FATAL",         "IBV_EVENT_QP_REQ_ERR",
      "IBV_EVENT_QP_ACCESS_ERR", "IBV_EVENT_COMM_EST",         "IBV_EVENT_SQ_DRAINED",
      "IBV_EVENT_PATH_MIG",      "IBV_EVENT_PATH_MIG_ERR",     "IBV_EVENT_DEVICE_FATAL",
      "IBV_EVENT_PORT_ACTIVE",   "IBV_EVENT_PORT_ERR",         "IBV_EVENT_LID_CHANGE",
      "IBV_EVENT_PKEY_CHANGE",   "IBV_EVENT_SM_CHANGE",        "IBV_EVENT_SRQ_ERR",
      "IBV_EVENT_SRQ_LIMIT_REACHED", "IBV_EVENT_QP_LAST_WQE_REACHED", "IBV_EVENT_CLIENT_REREGISTER",
      "IBV_EVENT_GID_CHANGE"};
  const auto i = static_cast<unsigned>(e);
  return i < sizeof(names) / sizeof(names[0]) ? names[i] : "?";
}

std::optional<const char*> check_qp_transition(ibv_qp_type type, ibv_qp_state cur, ibv_qp_state next,
                                               unsigned mask) {
  if (!(mask & IBV_QP_STATE)) return "IBV_QP_STATE missing from the attribute mask";

  const bool rc = type == IBV_QPT_RC, uc = type == IBV_QPT_UC, ud = type == IBV_QPT_UD;
  unsigned req = 0, opt = 0;
  const unsigned rtx_opt_rc = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE |
                              IBV_QP_MIN_RNR_TIMER;
  const unsigned rtx_opt_uc = IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS | IBV_QP_ALT_PATH | IBV_QP_PATH_MIG_STATE;
  const unsigned rtx_opt_ud = IBV_QP_CUR_STATE | IBV_QP_QKEY;
  const unsigned rtx_opt = rc ? rtx_opt_rc : uc ? rtx_opt_uc : rtx_opt_ud;
  if (next == IBV_QPS_RESET || next == IBV_QPS_ERR) return std::nullopt;  // from any state
  switch (cur) {
    case IBV_QPS_RESET:
      if (next != IBV_QPS_INIT) return "from RESET a QP can only go to INIT";
      req = ud ? (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)
               : (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
      break;
    case IBV_QPS_INIT:
      if (next == IBV_QPS_INIT) {
        opt = ud ? (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY)
                 : (IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS);
      } else if (next == IBV_QPS_RTR) {
        if (rc)
          req = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN | IBV_QP_MAX_DEST_RD_ATOMIC |
                IBV_QP_MIN_RNR_TIMER;
        else if (uc)
          req = IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
        opt = ud ? (IBV_QP_PKEY_INDEX | IBV_QP_QKEY) : (IBV_QP_ALT_PATH | IBV_QP_ACCESS_FLAGS | IBV_QP_PKEY_INDEX);
      } else {
        return "from INIT a QP can only go to INIT or RTR";
      }
      break;
    case IBV_QPS_RTR:
      if (next != IBV_QPS_RTS) return "from RTR a QP can only go to RTS";
      req = rc ? (IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC)
               : IBV_QP_SQ_PSN;
      opt = rtx_opt;
      break;
    case IBV_QPS_RTS:
      if (next == IBV_QPS_RTS) opt = rtx_opt;
      else if (next == IBV_QPS_SQD) opt = IBV_QP_EN_SQD_ASYNC_NOTIFY;
      else return "from RTS a QP can only go to RTS or SQD";
      break;
    case IBV_QPS_SQD:
      if (next != IBV_QPS_RTS && next != IBV_QPS_SQD) return "from SQD a QP can only go to RTS or SQD";
      opt = rtx_opt;
      if (next == IBV_QPS_SQD && !ud)
        opt |= IBV_QP_AV | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
               IBV_QP_MAX_QP_RD_ATOMIC | IBV_QP_MAX_DEST_RD_ATOMIC;
      break;
    case IBV_QPS_SQE:
      if (rc) return "an RC QP never enters SQE";
      if (next != IBV_QPS_RTS) return "from SQE a QP can only go to RTS";
      opt = ud ? (IBV_QP_CUR_STATE | IBV_QP_QKEY) : (IBV_QP_CUR_STATE | IBV_QP_ACCESS_FLAGS);
      break;
    case IBV_QPS_ERR:
      return "from ERR a QP can only go to RESET";
  }
  const unsigned given = mask & ~static_cast<unsigned>(IBV_QP_STATE);
  if ((given & req) != req) return "a required attribute for this transition is missing from the mask";
  if (given & ~(req | opt)) return "the mask has an attribute this transition does not accept";
  return std::nullopt;
}

}  // namespace ibfsim::verbs
