// In-process verbs tests: connect RC/UC QPs between two HCAs the way an application does
// (PD, CQ, MR, QP through INIT -> RTR -> RTS), and run code at chosen simulated times.
#pragma once
#include <functional>
#include <vector>

#include "sim/fabric/fabric.h"
#include "sim/transport/hca.h"

namespace ibfsim::test {

// Two HCAs through one switch: the fabric of the transport tests.
inline const char* kTwoHosts =
    "nodes: [{name: sw1, type: switch}, {name: h1, type: hca}, {name: h2, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}]\n";

// Transport tests are not about link training: links are up from time 0.
inline FabricOptions no_training() {
  FabricOptions o;
  o.link.training_delay = false;
  return o;
}

// The same, carrying real payload bytes (data checking).
inline FabricOptions with_data() {
  FabricOptions o = no_training();
  o.carry_payload = true;
  return o;
}

// Runs `fn` when its event fires: fire_at(hca, t, &at).
struct At {
  std::function<void()> fn;
  explicit At(std::function<void()> f) : fn(std::move(f)) {}
  void fire() { fn(); }
};

// One side of a connection: its PD, CQ (shared by send and receive), QP, and a buffer with an MR.
struct Endpoint {
  Hca* hca = nullptr;
  verbs::PdHandle pd = 0;
  verbs::CqHandle cq = 0;
  QueuePair* qp = nullptr;
  std::uint64_t buf = 0;
  std::uint64_t len = 0;
  verbs::ibv_mr mr;

  std::vector<verbs::ibv_wc> poll_all() {
    std::vector<verbs::ibv_wc> out;
    verbs::ibv_wc wc;
    while (hca->poll_cq(cq, 1, &wc) == 1) out.push_back(wc);
    return out;
  }
  verbs::ibv_sge sge(std::uint64_t offset, std::uint32_t length) const { return {buf + offset, length, mr.lkey}; }
};

// An address handle on `from`'s HCA (in its PD) for `to`'s port 1: its LID, SL 0, no GRH.
inline verbs::AhHandle ah_to(const Endpoint& from, const Endpoint& to) {
  verbs::ibv_ah_attr av;
  av.dlid = to.hca->lid();
  av.port_num = 1;
  const verbs::AhHandle ah = from.hca->create_ah(from.pd, av);
  REQUIRE(ah != 0);
  return ah;
}

inline Endpoint make_endpoint(Hca& hca, verbs::ibv_qp_type type, std::uint64_t buf_len, unsigned access) {
  using namespace verbs;
  Endpoint e;
  e.hca = &hca;
  e.pd = hca.alloc_pd();
  e.cq = hca.create_cq(4096);
  ibv_qp_init_attr init;
  init.send_cq = init.recv_cq = e.cq;
  init.qp_type = type;
  init.cap.max_send_wr = init.cap.max_recv_wr = 1024;
  init.cap.max_send_sge = init.cap.max_recv_sge = 4;
  e.qp = hca.create_qp(e.pd, init);
  e.len = buf_len;
  e.buf = hca.alloc_host_memory(buf_len);
  e.mr = *hca.reg_mr(e.pd, e.buf, buf_len, access);
  return e;
}

struct RcParams {
  verbs::ibv_mtu mtu = verbs::IBV_MTU_4096;
  std::uint8_t timeout = 14, retry_cnt = 7, rnr_retry = 7, min_rnr_timer = 1;
  std::uint8_t max_rd_atomic = 4;
  unsigned access = verbs::IBV_ACCESS_LOCAL_WRITE | verbs::IBV_ACCESS_REMOTE_WRITE | verbs::IBV_ACCESS_REMOTE_READ |
                    verbs::IBV_ACCESS_REMOTE_ATOMIC;
  Psn a_psn = 0x100, b_psn = 0x200;
};

// Moves a's QP to RTS talking to b's (and the other way round).
inline void connect(Endpoint& a, Endpoint& b, const RcParams& prm = {}) {
  using namespace verbs;
  const bool rc = a.qp->type() == IBV_QPT_RC;
  auto bring_up = [&](Endpoint& self, Endpoint& peer, Psn my_psn, Psn peer_psn) {
    ibv_qp_attr at;
    at.qp_state = IBV_QPS_INIT;
    at.pkey_index = 0;
    at.port_num = 1;
    at.qp_access_flags = prm.access;
    REQUIRE(self.hca->modify_qp(*self.qp, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0);
    at.qp_state = IBV_QPS_RTR;
    at.path_mtu = prm.mtu;
    at.dest_qp_num = peer.qp->qpn();
    at.rq_psn = peer_psn;
    at.ah_attr.dlid = peer.hca->lid();
    at.ah_attr.port_num = 1;
    at.max_dest_rd_atomic = prm.max_rd_atomic;
    at.min_rnr_timer = prm.min_rnr_timer;
    unsigned m = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN;
    if (rc) m |= IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
    REQUIRE(self.hca->modify_qp(*self.qp, at, m) == 0);
    at.qp_state = IBV_QPS_RTS;
    at.sq_psn = my_psn;
    at.timeout = prm.timeout;
    at.retry_cnt = prm.retry_cnt;
    at.rnr_retry = prm.rnr_retry;
    at.max_rd_atomic = prm.max_rd_atomic;
    m = IBV_QP_STATE | IBV_QP_SQ_PSN;
    if (rc) m |= IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY | IBV_QP_MAX_QP_RD_ATOMIC;
    REQUIRE(self.hca->modify_qp(*self.qp, at, m) == 0);
  };
  bring_up(a, b, prm.a_psn, prm.b_psn);
  bring_up(b, a, prm.b_psn, prm.a_psn);
}

inline verbs::ibv_send_wr write_wr(const Endpoint& from, const Endpoint& to, std::uint64_t offset, std::uint32_t len,
                                   std::uint64_t wr_id) {
  verbs::ibv_send_wr wr;
  wr.wr_id = wr_id;
  wr.opcode = verbs::IBV_WR_RDMA_WRITE;
  wr.send_flags = verbs::IBV_SEND_SIGNALED;
  wr.sg_list = {from.sge(offset, len)};
  wr.rdma.remote_addr = to.buf + offset;
  wr.rdma.rkey = to.mr.rkey;
  return wr;
}

}  // namespace ibfsim::test
