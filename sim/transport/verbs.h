// The verbs API's types, modelled on libibverbs (include/infiniband/verbs.h): the same names,
// enumerator values and semantics, so code written against ibv_* reads the same here. The calls
// themselves are members of Hca (alloc_pd, reg_mr, create_cq, create_qp, modify_qp, post_send,
// post_recv, poll_cq, create_srq, alloc_mw, bind_mw, create_ah, ...); they return 0 or an errno
// value as libibverbs does.
//
// Differences from libibverbs, all because this is a simulation: memory is the HCA's simulated
// host memory (addresses come from Hca::alloc_host_memory, not malloc); objects are small integer
// handles (0 where libibverbs returns NULL) or structs returned by value (ibv_mr, ibv_mw); a CQ
// can call back on every completion (instead of a completion channel), and the HCA on every
// asynchronous event (instead of the context's async fd), so an application model wakes only
// when something happens; unions of libibverbs (imm_data / invalidate_rkey, the wr union) are
// plain fields here.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/core/ids.h"
#include "sim/network/grh.h"

namespace ibfsim::verbs {

enum ibv_qp_type { IBV_QPT_RC = 2, IBV_QPT_UC = 3, IBV_QPT_UD = 4 };

enum ibv_qp_state {
  IBV_QPS_RESET = 0,
  IBV_QPS_INIT = 1,
  IBV_QPS_RTR = 2,
  IBV_QPS_RTS = 3,
  IBV_QPS_SQD = 4,
  IBV_QPS_SQE = 5,
  IBV_QPS_ERR = 6,
};
const char* qp_state_str(ibv_qp_state s);

enum ibv_access_flags : unsigned {
  IBV_ACCESS_LOCAL_WRITE = 1,
  IBV_ACCESS_REMOTE_WRITE = 2,
  IBV_ACCESS_REMOTE_READ = 4,
  IBV_ACCESS_REMOTE_ATOMIC = 8,
  IBV_ACCESS_MW_BIND = 16,     // memory windows may be bound to the region
  IBV_ACCESS_ZERO_BASED = 32,  // (a window's addresses start at 0: not modelled, refused)
};

enum ibv_mtu { IBV_MTU_256 = 1, IBV_MTU_512 = 2, IBV_MTU_1024 = 3, IBV_MTU_2048 = 4, IBV_MTU_4096 = 5 };
constexpr std::uint32_t mtu_bytes(ibv_mtu m) { return 128u << m; }

enum ibv_wr_opcode {
  IBV_WR_RDMA_WRITE = 0,
  IBV_WR_RDMA_WRITE_WITH_IMM = 1,
  IBV_WR_SEND = 2,
  IBV_WR_SEND_WITH_IMM = 3,
  IBV_WR_RDMA_READ = 4,
  IBV_WR_ATOMIC_CMP_AND_SWP = 5,
  IBV_WR_ATOMIC_FETCH_AND_ADD = 6,
  IBV_WR_LOCAL_INV = 7,       // invalidate a type 2 window (invalidate_rkey): no packet
  IBV_WR_BIND_MW = 8,         // bind a window (bind_mw): no packet
  IBV_WR_SEND_WITH_INV = 9,   // SEND whose responder invalidates invalidate_rkey (RC; IETH)
};
const char* wr_opcode_str(ibv_wr_opcode o);

enum ibv_send_flags : unsigned { IBV_SEND_FENCE = 1, IBV_SEND_SIGNALED = 2, IBV_SEND_SOLICITED = 4, IBV_SEND_INLINE = 8 };

enum ibv_wc_status {
  IBV_WC_SUCCESS = 0,
  IBV_WC_LOC_LEN_ERR = 1,
  IBV_WC_LOC_QP_OP_ERR = 2,
  IBV_WC_LOC_EEC_OP_ERR = 3,
  IBV_WC_LOC_PROT_ERR = 4,
  IBV_WC_WR_FLUSH_ERR = 5,
  IBV_WC_MW_BIND_ERR = 6,
  IBV_WC_BAD_RESP_ERR = 7,
  IBV_WC_LOC_ACCESS_ERR = 8,
  IBV_WC_REM_INV_REQ_ERR = 9,
  IBV_WC_REM_ACCESS_ERR = 10,
  IBV_WC_REM_OP_ERR = 11,
  IBV_WC_RETRY_EXC_ERR = 12,
  IBV_WC_RNR_RETRY_EXC_ERR = 13,
  IBV_WC_LOC_RDD_VIOL_ERR = 14,
  IBV_WC_REM_INV_RD_REQ_ERR = 15,
  IBV_WC_REM_ABORT_ERR = 16,
  IBV_WC_INV_EECN_ERR = 17,
  IBV_WC_INV_EEC_STATE_ERR = 18,
  IBV_WC_FATAL_ERR = 19,
  IBV_WC_RESP_TIMEOUT_ERR = 20,
  IBV_WC_GENERAL_ERR = 21,
};
// "IBV_WC_SUCCESS", ... (as ibv_wc_status_str names them in libibverbs: the enumerator's name).
const char* wc_status_str(ibv_wc_status s);

enum ibv_wc_opcode {
  IBV_WC_SEND = 0,
  IBV_WC_RDMA_WRITE = 1,
  IBV_WC_RDMA_READ = 2,
  IBV_WC_COMP_SWAP = 3,
  IBV_WC_FETCH_ADD = 4,
  IBV_WC_BIND_MW = 5,
  IBV_WC_LOCAL_INV = 6,
  IBV_WC_RECV = 128,
  IBV_WC_RECV_RDMA_WITH_IMM = 129,
};

// The opcode of the send completion of a work request of opcode `o`.
ibv_wc_opcode wc_opcode(ibv_wr_opcode o);

enum ibv_wc_flags : unsigned { IBV_WC_GRH = 1, IBV_WC_WITH_IMM = 2, IBV_WC_WITH_INV = 8 };

// Handles (0: none, where libibverbs has NULL).
using PdHandle = std::uint32_t;
using CqHandle = std::uint32_t;
using SrqHandle = std::uint32_t;
using AhHandle = std::uint32_t;
using MwHandle = std::uint32_t;

struct ibv_sge {
  std::uint64_t addr = 0;
  std::uint32_t length = 0;
  std::uint32_t lkey = 0;
};

struct ibv_mr {
  PdHandle pd = 0;
  std::uint64_t addr = 0;
  std::uint64_t length = 0;
  std::uint32_t lkey = 0, rkey = 0;
  unsigned access = 0;
};

// ibv_rereg_mr's flags and its error codes (it returns 0 or one of these, as libibverbs does).
enum ibv_rereg_mr_flags : unsigned {
  IBV_REREG_MR_CHANGE_TRANSLATION = 1,
  IBV_REREG_MR_CHANGE_PD = 2,
  IBV_REREG_MR_CHANGE_ACCESS = 4,
};
enum ibv_rereg_mr_err_code { IBV_REREG_MR_ERR_INPUT = -1 };  // (libibverbs has others; the model needs none)

// Memory windows (IBA Vol1 10.6.7): a window gives remote access to part of a region it is bound
// to, through its own R_Key. Type 1 is bound with ibv_bind_mw and belongs to its PD; type 2 (2B)
// is bound with an IBV_WR_BIND_MW work request and can be reached only through the QP that bound
// it, until IBV_WR_LOCAL_INV, a SEND with Invalidate naming its R_Key, or ibv_dealloc_mw.
enum ibv_mw_type { IBV_MW_TYPE_1 = 1, IBV_MW_TYPE_2 = 2 };

struct ibv_mw {
  PdHandle pd = 0;
  std::uint32_t rkey = 0;  // the R_Key now (ibv_bind_mw of a type 1 window changes it)
  MwHandle handle = 0;
  ibv_mw_type type = IBV_MW_TYPE_1;
};

struct ibv_mw_bind_info {
  ibv_mr mr;                   // the region (its L_Key names it); length 0 (type 1): unbind
  std::uint64_t addr = 0;      // the window's first byte, inside the region
  std::uint64_t length = 0;
  unsigned mw_access_flags = 0;  // IBV_ACCESS_REMOTE_READ | _WRITE | _ATOMIC
};

struct ibv_mw_bind {
  std::uint64_t wr_id = 0;
  unsigned send_flags = 0;
  ibv_mw_bind_info bind_info;
};

// libibverbs' ibv_inc_rkey: the same index, the next key byte.
constexpr std::uint32_t ibv_inc_rkey(std::uint32_t rkey) { return (rkey & ~0xFFu) | ((rkey + 1) & 0xFFu); }

// Shared receive queues: receive WQEs that the QPs created with the SRQ take in turn.
struct ibv_srq_attr {
  std::uint32_t max_wr = 0;
  std::uint32_t max_sge = 1;
  std::uint32_t srq_limit = 0;  // 0: the limit event is not armed (ibv_create_srq ignores it)
};

struct ibv_srq_init_attr {
  ibv_srq_attr attr;
};

enum ibv_srq_attr_mask : unsigned { IBV_SRQ_MAX_WR = 1, IBV_SRQ_LIMIT = 2 };

// Asynchronous events (ibv_get_async_event), in libibverbs' order.
enum ibv_event_type {
  IBV_EVENT_CQ_ERR,
  IBV_EVENT_QP_FATAL,
  IBV_EVENT_QP_REQ_ERR,
  IBV_EVENT_QP_ACCESS_ERR,
  IBV_EVENT_COMM_EST,
  IBV_EVENT_SQ_DRAINED,
  IBV_EVENT_PATH_MIG,
  IBV_EVENT_PATH_MIG_ERR,
  IBV_EVENT_DEVICE_FATAL,
  IBV_EVENT_PORT_ACTIVE,
  IBV_EVENT_PORT_ERR,
  IBV_EVENT_LID_CHANGE,
  IBV_EVENT_PKEY_CHANGE,
  IBV_EVENT_SM_CHANGE,
  IBV_EVENT_SRQ_ERR,
  IBV_EVENT_SRQ_LIMIT_REACHED,
  IBV_EVENT_QP_LAST_WQE_REACHED,
  IBV_EVENT_CLIENT_REREGISTER,
  IBV_EVENT_GID_CHANGE,
};
// "IBV_EVENT_SRQ_LIMIT_REACHED", ...: the enumerator's name.
const char* event_type_str(ibv_event_type e);

struct ibv_async_event {
  struct {
    Qpn qp_num = 0;  // a QP's event
    SrqHandle srq = 0;  // an SRQ's event
    CqHandle cq = 0;
    std::uint8_t port_num = 0;
  } element;
  ibv_event_type event_type = IBV_EVENT_CQ_ERR;
};

// Address vector (ibv_ah_attr); a UD work request carries one (libibverbs: an ibv_ah made from it).
struct ibv_ah_attr {
  Lid dlid = 0;
  std::uint8_t sl = 0;
  std::uint8_t src_path_bits = 0;
  std::uint8_t port_num = 1;
  bool is_global = false;
  Grh grh;  // used when is_global: dgid, flow_label, hop_limit, traffic_class; sgid is the port's
};

struct ibv_send_wr {
  std::uint64_t wr_id = 0;
  std::vector<ibv_sge> sg_list;
  ibv_wr_opcode opcode = IBV_WR_SEND;
  unsigned send_flags = 0;
  std::uint32_t imm_data = 0;  // host order here
  std::uint32_t invalidate_rkey = 0;  // IBV_WR_SEND_WITH_INV, IBV_WR_LOCAL_INV
  struct {
    std::uint64_t remote_addr = 0;
    std::uint32_t rkey = 0;
  } rdma;
  struct {
    std::uint64_t remote_addr = 0;
    std::uint64_t compare_add = 0;
    std::uint64_t swap = 0;
    std::uint32_t rkey = 0;
  } atomic;
  struct {
    AhHandle ah = 0;  // Hca::create_ah; its address vector is copied into the WQE at post time
    Qpn remote_qpn = 0;
    std::uint32_t remote_qkey = 0;
  } ud;
  struct {
    MwHandle mw = 0;
    std::uint32_t rkey = 0;  // the window's R_Key after the bind: its index, a new key byte
    ibv_mw_bind_info bind_info;
  } bind_mw;
};

struct ibv_recv_wr {
  std::uint64_t wr_id = 0;
  std::vector<ibv_sge> sg_list;
};

struct ibv_wc {
  std::uint64_t wr_id = 0;
  ibv_wc_status status = IBV_WC_SUCCESS;
  ibv_wc_opcode opcode = IBV_WC_SEND;
  std::uint32_t vendor_err = 0;
  std::uint32_t byte_len = 0;
  std::uint32_t imm_data = 0;
  Qpn qp_num = 0;
  Qpn src_qp = 0;
  unsigned wc_flags = 0;
  Lid slid = 0;
  std::uint8_t sl = 0;
  std::uint32_t invalidated_rkey = 0;  // with IBV_WC_WITH_INV
};

struct ibv_qp_cap {
  std::uint32_t max_send_wr = 128, max_recv_wr = 128;
  std::uint32_t max_send_sge = 1, max_recv_sge = 1;
};

struct ibv_qp_init_attr {
  CqHandle send_cq = 0, recv_cq = 0;
  SrqHandle srq = 0;  // receives come from this SRQ (RC, UC, UD) instead of the QP's own queue
  ibv_qp_cap cap;
  ibv_qp_type qp_type = IBV_QPT_RC;
  bool sq_sig_all = false;
};

enum ibv_qp_attr_mask : unsigned {
  IBV_QP_STATE = 1 << 0,
  IBV_QP_CUR_STATE = 1 << 1,
  IBV_QP_EN_SQD_ASYNC_NOTIFY = 1 << 2,
  IBV_QP_ACCESS_FLAGS = 1 << 3,
  IBV_QP_PKEY_INDEX = 1 << 4,
  IBV_QP_PORT = 1 << 5,
  IBV_QP_QKEY = 1 << 6,
  IBV_QP_AV = 1 << 7,
  IBV_QP_PATH_MTU = 1 << 8,
  IBV_QP_TIMEOUT = 1 << 9,
  IBV_QP_RETRY_CNT = 1 << 10,
  IBV_QP_RNR_RETRY = 1 << 11,
  IBV_QP_RQ_PSN = 1 << 12,
  IBV_QP_MAX_QP_RD_ATOMIC = 1 << 13,
  IBV_QP_ALT_PATH = 1 << 14,
  IBV_QP_MIN_RNR_TIMER = 1 << 15,
  IBV_QP_SQ_PSN = 1 << 16,
  IBV_QP_MAX_DEST_RD_ATOMIC = 1 << 17,
  IBV_QP_PATH_MIG_STATE = 1 << 18,
  IBV_QP_CAP = 1 << 19,
  IBV_QP_DEST_QPN = 1 << 20,
};

struct ibv_qp_attr {
  ibv_qp_state qp_state = IBV_QPS_RESET;
  ibv_qp_state cur_qp_state = IBV_QPS_RESET;
  ibv_mtu path_mtu = IBV_MTU_4096;
  std::uint32_t qkey = 0;
  Psn rq_psn = 0, sq_psn = 0;
  Qpn dest_qp_num = 0;
  unsigned qp_access_flags = 0;
  ibv_ah_attr ah_attr;
  std::uint16_t pkey_index = 0;
  std::uint8_t max_rd_atomic = 1, max_dest_rd_atomic = 1;
  std::uint8_t min_rnr_timer = 0;
  std::uint8_t port_num = 1;
  std::uint8_t timeout = 14;   // 4.096 us x 2^14 = 67 ms
  std::uint8_t retry_cnt = 7;
  std::uint8_t rnr_retry = 7;  // 7 = retry forever
};

// Which attributes each transition requires (and which it optionally accepts), per QP type, as
// libibverbs/the spec define them (IBA Vol1 ch. 10-11). Returns nullopt if allowed, else what is wrong.
std::optional<const char*> check_qp_transition(ibv_qp_type type, ibv_qp_state cur, ibv_qp_state next,
                                               unsigned attr_mask);

}  // namespace ibfsim::verbs
