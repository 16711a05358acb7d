#include "sim/workload/rc_pair.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace ibfsim {

using namespace verbs;

ibv_mtu ibv_mtu_of(std::uint32_t bytes) {
  for (ibv_mtu m : {IBV_MTU_256, IBV_MTU_512, IBV_MTU_1024, IBV_MTU_2048})
    if (mtu_bytes(m) == bytes) return m;
  return IBV_MTU_4096;
}

std::array<QueuePair*, 2> connect_rc_pair(const RcPairEnd (&ends)[2], const RcPairSettings& s) {
  std::array<QueuePair*, 2> qp{};
  for (int i = 0; i < 2; ++i) {
    const RcPairEnd& e = ends[i];
    ibv_qp_init_attr init;
    init.send_cq = e.send_cq;
    init.recv_cq = e.recv_cq;
    init.qp_type = IBV_QPT_RC;
    init.cap.max_send_wr = s.max_send_wr;
    init.cap.max_recv_wr = s.max_recv_wr;
    qp[i] = e.hca->create_qp(e.pd, init);
    IBFSIM_CHECK(qp[i] != nullptr, fmt::format("{}: create_qp failed", s.who));
    ibv_qp_attr at;
    at.qp_state = IBV_QPS_INIT;
    at.port_num = 1;
    at.qp_access_flags = s.access;
    IBFSIM_CHECK(e.hca->modify_qp(*qp[i], at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0,
                 fmt::format("{}: QP to INIT refused", s.who));
  }
  for (int i = 0; i < 2; ++i) {
    const RcPairEnd& e = ends[i];
    ibv_qp_attr at;
    at.qp_state = IBV_QPS_RTR;
    at.path_mtu = ibv_mtu_of(s.mtu);
    at.dest_qp_num = qp[1 - i]->qpn();
    at.rq_psn = 0;
    at.ah_attr.dlid = ends[1 - i].hca->lid();
    at.ah_attr.sl = s.sl;
    at.ah_attr.port_num = 1;
    at.max_dest_rd_atomic = 1;
    at.min_rnr_timer = 1;
    IBFSIM_CHECK(e.hca->modify_qp(*qp[i], at,
                                  IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) == 0,
                 fmt::format("{}: QP to RTR refused", s.who));
    at.qp_state = IBV_QPS_RTS;
    at.sq_psn = 0;
    IBFSIM_CHECK(e.hca->modify_qp(*qp[i], at,
                                  IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                      IBV_QP_MAX_QP_RD_ATOMIC) == 0,
                 fmt::format("{}: QP to RTS refused", s.who));
  }
  return qp;
}

}  // namespace ibfsim
