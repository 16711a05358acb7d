// UC and UD queue pairs through the verbs API, and the partition and Q_Key checks (R35-R37).
#include <catch2/catch.hpp>

#include <cerrno>
#include <cstring>

#include "tests/support/fabric_harness.h"
#include "tests/support/verbs_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
// A UD QP in RTS with Q_Key `qkey`.
Endpoint ud_endpoint(Hca& h, std::uint32_t qkey, std::uint16_t pkey_index = 0) {
  Endpoint e = make_endpoint(h, IBV_QPT_UD, 8192, IBV_ACCESS_LOCAL_WRITE);
  ibv_qp_attr at;
  at.qp_state = IBV_QPS_INIT;
  at.pkey_index = pkey_index;
  at.port_num = 1;
  at.qkey = qkey;
  REQUIRE(h.modify_qp(*e.qp, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) == 0);
  at.qp_state = IBV_QPS_RTR;
  REQUIRE(h.modify_qp(*e.qp, at, IBV_QP_STATE) == 0);
  at.qp_state = IBV_QPS_RTS;
  at.sq_psn = 0;
  REQUIRE(h.modify_qp(*e.qp, at, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0);
  return e;
}

ibv_send_wr ud_send(const Endpoint& from, const Endpoint& to, std::uint32_t len, std::uint32_t qkey, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = {from.sge(0, len)};
  wr.ud.ah = ah_to(from, to);
  wr.ud.remote_qpn = to.qp->qpn();
  wr.ud.remote_qkey = qkey;
  return wr;
}
}  // namespace

TEST_CASE("UC: a SEND with no receive posted is dropped and counted, the next one is delivered, no ACKs",
          "[transport][uc]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_UC, 16384, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_UC, 16384, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  RcParams prm;
  prm.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  connect(a, b, prm);
  std::memset(a.hca->memory().bytes(a.buf, 16384), 0x5C, 16384);
  At first([&] {
    ibv_send_wr wr;
    wr.wr_id = 1;
    wr.opcode = IBV_WR_SEND;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.sg_list = {a.sge(0, 9000)};
    REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
  });
  At second([&] {
    ibv_recv_wr r;
    r.wr_id = 7;
    r.sg_list = {b.sge(0, 16384)};
    REQUIRE(b.hca->post_recv(*b.qp, r) == 0);
    auto wr = write_wr(a, b, 0, 12000, 2);
    wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
    wr.imm_data = 42;
    REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
  });
  fire_at(*a.hca, 1 * kUs, &first);
  fire_at(*a.hca, 50 * kUs, &second);
  run_for(f, 1 * kMs);
  auto sw = a.poll_all();
  REQUIRE(sw.size() == 2);  // UC completes on the wire, whatever happens at the far end
  CHECK(sw[0].status == IBV_WC_SUCCESS);
  CHECK(sw[1].status == IBV_WC_SUCCESS);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK(rw[0].opcode == IBV_WC_RECV_RDMA_WITH_IMM);
  CHECK(rw[0].imm_data == 42);
  CHECK(b.qp->stats().no_recv_wqe_dropped == 1);
  CHECK(b.qp->stats().acks_sent == 0);
  CHECK(a.qp->stats().packets_sent == 3 + 3);
  CHECK(std::memcmp(a.hca->memory().bytes(a.buf, 12000), b.hca->memory().bytes(b.buf, 12000), 12000) == 0);
}

TEST_CASE("UD verbs: delivered with 40 bytes of GRH room, a wrong Q_Key dropped silently and counted",
          "[transport][ud]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = ud_endpoint(*f.hca(1), 0x1111);
  Endpoint b = ud_endpoint(*f.hca(2), 0x2222);
  std::memset(a.hca->memory().bytes(a.buf, 1000), 0x77, 1000);
  for (int i = 0; i < 2; ++i) {
    ibv_recv_wr r;
    r.wr_id = 10 + static_cast<std::uint64_t>(i);
    r.sg_list = {b.sge(4096 * static_cast<std::uint64_t>(i), 4096)};
    REQUIRE(b.hca->post_recv(*b.qp, r) == 0);
  }
  At go([&] {
    REQUIRE(a.hca->post_send(*a.qp, ud_send(a, b, 1000, 0x9999, 1)) == 0);  // wrong Q_Key
    REQUIRE(a.hca->post_send(*a.qp, ud_send(a, b, 1000, 0x2222, 2)) == 0);
  });
  fire_at(*a.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  CHECK(a.poll_all().size() == 2);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK(rw[0].wr_id == 10);
  CHECK(rw[0].byte_len == 1040);
  CHECK(rw[0].src_qp == a.qp->qpn());
  CHECK(rw[0].slid == a.hca->lid());
  CHECK(b.hca->memory().bytes(b.buf + 40, 1000)[0] == 0x77);
  CHECK(b.hca->memory().bytes(b.buf + 40, 1000)[999] == 0x77);
  CHECK(b.qp->stats().qkey_violations == 1);
}

TEST_CASE("UD sends name an address handle: its address vector is copied at post (destroying it later changes "
          "nothing), an unknown or destroyed one or another PD's is refused",
          "[transport][ud]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = ud_endpoint(*f.hca(1), 0x2222);
  Endpoint b = ud_endpoint(*f.hca(2), 0x2222);
  Hca& h1 = *a.hca;
  for (int i = 0; i < 2; ++i) REQUIRE(b.hca->post_recv(*b.qp, ibv_recv_wr{static_cast<std::uint64_t>(i), {b.sge(4096 * i, 4096)}}) == 0);
  ibv_ah_attr av;
  av.dlid = b.hca->lid();
  av.sl = 3;
  const AhHandle ah = h1.create_ah(a.pd, av);
  REQUIRE(ah != 0);
  ibv_ah_attr bad_port = av;
  bad_port.port_num = 2;
  CHECK(h1.create_ah(a.pd, bad_port) == 0);
  CHECK(h1.create_ah(77, av) == 0);
  const AhHandle other_pd = h1.create_ah(h1.alloc_pd(), av);
  REQUIRE(other_pd != 0);
  int destroyed_post = -1, other_pd_post = -1, unknown_post = -1;
  At go([&] {
    ibv_send_wr wr = ud_send(a, b, 100, 0x2222, 1);
    wr.ud.ah = ah;
    REQUIRE(h1.post_send(*a.qp, wr) == 0);
    REQUIRE(h1.destroy_ah(ah) == 0);  // the WQE posted keeps its copy
    CHECK(h1.destroy_ah(ah) == EINVAL);
    destroyed_post = h1.post_send(*a.qp, wr);
    wr.ud.ah = other_pd;
    other_pd_post = h1.post_send(*a.qp, wr);
    wr.ud.ah = 0;
    unknown_post = h1.post_send(*a.qp, wr);
  });
  fire_at(h1, 1 * kUs, &go);
  run_for(f, 100 * kUs);
  CHECK(destroyed_post == EINVAL);
  CHECK(other_pd_post == EINVAL);
  CHECK(unknown_post == EINVAL);
  const auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK(rw[0].status == IBV_WC_SUCCESS);
  CHECK(rw[0].sl == 3);  // the address vector's SL
  CHECK(rw[0].slid == h1.lid());
  CHECK(a.poll_all().size() == 1);
}

TEST_CASE("P_Keys: full-limited passes, limited-limited and another partition are dropped as P_Key violations",
          "[transport][ud]") {
  Fabric& f = build_fabric(kTwoHosts, no_training());
  f.hca(1)->set_p_keys({0xFFFF, 0x0005, 0x0006});  // full default, limited 5, limited 6
  f.hca(2)->set_p_keys({0xFFFF, 0x8005, 0x0005});  // full default, full 5, limited 5
  Endpoint lim5 = ud_endpoint(*f.hca(1), 1, 1);
  Endpoint lim6 = ud_endpoint(*f.hca(1), 1, 2);
  Endpoint full5 = ud_endpoint(*f.hca(2), 1, 1);
  Endpoint lim5b = ud_endpoint(*f.hca(2), 1, 2);
  for (Endpoint* e : {&full5, &lim5b}) {
    for (int i = 0; i < 3; ++i) {
      ibv_recv_wr r;
      r.sg_list = {e->sge(0, 4096)};
      REQUIRE(e->hca->post_recv(*e->qp, r) == 0);
    }
  }
  At go([&] {
    REQUIRE(lim5.hca->post_send(*lim5.qp, ud_send(lim5, full5, 100, 1, 1)) == 0);  // limited -> full: ok
    REQUIRE(lim5.hca->post_send(*lim5.qp, ud_send(lim5, lim5b, 100, 1, 2)) == 0);  // limited -> limited: no
    REQUIRE(lim6.hca->post_send(*lim6.qp, ud_send(lim6, full5, 100, 1, 3)) == 0);  // partition 6 -> 5: no
  });
  fire_at(*lim5.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  CHECK(full5.poll_all().size() == 1);
  CHECK(lim5b.poll_all().empty());
  CHECK(f.ledger().dropped_count(DropReason::kPkeyViolation) == 2);
}
