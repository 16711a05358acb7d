// RC queue pairs end to end through one switch: every operation, with data checked byte for
// byte in host memory, and the protocol's counters exact.
#include <catch2/catch.hpp>

#include <cstring>

#include "tests/support/fabric_harness.h"
#include "tests/support/verbs_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
void fill(Hca& h, std::uint64_t addr, std::uint32_t len, std::uint8_t seed) {
  std::uint8_t* b = h.memory().bytes(addr, len);
  for (std::uint32_t i = 0; i < len; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7 + (i >> 8));
}
}  // namespace

TEST_CASE("RC RDMA WRITE of 64 KiB: 16 packets at PMTU 4096, one ACK, target memory equals source",
          "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 1 << 17, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 1 << 17, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  fill(*a.hca, a.buf, 65536, 3);
  At go([&] { REQUIRE(a.hca->post_send(*a.qp, write_wr(a, b, 0, 65536, 77)) == 0); });
  fire_at(*a.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 1);
  CHECK(wcs[0].status == IBV_WC_SUCCESS);
  CHECK(wcs[0].wr_id == 77);
  CHECK(wcs[0].opcode == IBV_WC_RDMA_WRITE);
  CHECK(std::memcmp(a.hca->memory().bytes(a.buf, 65536), b.hca->memory().bytes(b.buf, 65536), 65536) == 0);
  CHECK(b.poll_all().empty());  // a WRITE without immediate completes nothing at the target
  CHECK(a.qp->stats().packets_sent == 16);
  CHECK(a.qp->stats().acks_received == 1);
  CHECK(b.qp->stats().acks_sent == 1);
  CHECK(a.qp->stats().packets_retransmitted == 0);
}

TEST_CASE("RC SEND with immediate lands in the posted receive, byte_len and imm_data as sent", "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 1 << 16, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 1 << 16, IBV_ACCESS_LOCAL_WRITE);
  connect(a, b);
  fill(*a.hca, a.buf, 10000, 9);
  ibv_recv_wr rwr;
  rwr.wr_id = 5;
  rwr.sg_list = {b.sge(0, 16384)};
  REQUIRE(b.hca->post_recv(*b.qp, rwr) == 0);
  At go([&] {
    ibv_send_wr wr;
    wr.wr_id = 1;
    wr.opcode = IBV_WR_SEND_WITH_IMM;
    wr.imm_data = 0xCAFE;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.sg_list = {a.sge(0, 10000)};
    REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
  });
  fire_at(*a.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK(rw[0].status == IBV_WC_SUCCESS);
  CHECK(rw[0].opcode == IBV_WC_RECV);
  CHECK(rw[0].byte_len == 10000);
  CHECK((rw[0].wc_flags & IBV_WC_WITH_IMM));
  CHECK(rw[0].imm_data == 0xCAFE);
  CHECK(rw[0].src_qp == a.qp->qpn());
  CHECK(std::memcmp(a.hca->memory().bytes(a.buf, 10000), b.hca->memory().bytes(b.buf, 10000), 10000) == 0);
  auto sw = a.poll_all();
  REQUIRE(sw.size() == 1);
  CHECK(sw[0].status == IBV_WC_SUCCESS);
  CHECK(a.qp->stats().packets_sent == 3);  // 4096 + 4096 + 1808
}

TEST_CASE("RC RDMA READ of 10000 bytes: 3 response packets, local buffer equals remote", "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 1 << 16, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 1 << 16, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
  connect(a, b);
  fill(*b.hca, b.buf + 100, 10000, 21);
  At go([&] {
    ibv_send_wr wr;
    wr.wr_id = 9;
    wr.opcode = IBV_WR_RDMA_READ;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.sg_list = {a.sge(0, 10000)};
    wr.rdma.remote_addr = b.buf + 100;
    wr.rdma.rkey = b.mr.rkey;
    REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
  });
  fire_at(*a.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 1);
  CHECK(wcs[0].status == IBV_WC_SUCCESS);
  CHECK(wcs[0].opcode == IBV_WC_RDMA_READ);
  CHECK(wcs[0].byte_len == 10000);
  CHECK(std::memcmp(a.hca->memory().bytes(a.buf, 10000), b.hca->memory().bytes(b.buf + 100, 10000), 10000) == 0);
  CHECK(a.qp->stats().packets_sent == 1);
  CHECK(b.qp->stats().packets_sent == 3);
}

TEST_CASE("RC atomics: three FetchAdds return 0, 5, 10, CmpSwap swaps only on a match", "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, no_training());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_ATOMIC);
  connect(a, b);
  At go([&] {
    for (int i = 0; i < 3; ++i) {
      ibv_send_wr wr;
      wr.wr_id = static_cast<std::uint64_t>(i);
      wr.opcode = IBV_WR_ATOMIC_FETCH_AND_ADD;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.sg_list = {a.sge(8 * static_cast<std::uint64_t>(i), 8)};
      wr.atomic.remote_addr = b.buf;
      wr.atomic.rkey = b.mr.rkey;
      wr.atomic.compare_add = 5;
      REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
    }
    for (std::uint64_t cmp : {99u, 15u}) {  // 99 does not match; 15 does
      ibv_send_wr wr;
      wr.wr_id = 100 + cmp;
      wr.opcode = IBV_WR_ATOMIC_CMP_AND_SWP;
      wr.send_flags = IBV_SEND_SIGNALED;
      wr.sg_list = {a.sge(cmp == 99 ? 24 : 32, 8)};
      wr.atomic.remote_addr = b.buf;
      wr.atomic.rkey = b.mr.rkey;
      wr.atomic.compare_add = cmp;
      wr.atomic.swap = 1000;
      REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
    }
  });
  fire_at(*a.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 5);
  for (const auto& wc : wcs) CHECK(wc.status == IBV_WC_SUCCESS);
  CHECK(wcs[0].opcode == IBV_WC_FETCH_ADD);
  CHECK(wcs[4].opcode == IBV_WC_COMP_SWAP);
  CHECK(a.hca->memory().load64(a.buf) == 0);
  CHECK(a.hca->memory().load64(a.buf + 8) == 5);
  CHECK(a.hca->memory().load64(a.buf + 16) == 10);
  CHECK(a.hca->memory().load64(a.buf + 24) == 15);  // original value returned, no swap
  CHECK(a.hca->memory().load64(a.buf + 32) == 15);
  CHECK(b.hca->memory().load64(b.buf) == 1000);
}

TEST_CASE("RC to a QP that does not answer: ACK timeout 8.192 us, retry_cnt 2, then IBV_WC_RETRY_EXC_ERR",
          "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, no_training());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  RcParams prm;
  prm.timeout = 1;  // 4.096 us x 2 = 8.192 us
  prm.retry_cnt = 2;
  connect(a, b, prm);
  REQUIRE(b.hca->modify_qp(*b.qp, [] { ibv_qp_attr x; x.qp_state = IBV_QPS_RESET; return x; }(), IBV_QP_STATE) == 0);
  At go([&] { REQUIRE(a.hca->post_send(*a.qp, write_wr(a, b, 0, 64, 1)) == 0); });
  fire_at(*a.hca, 1 * kUs, &go);
  run_for(f, 1 * kMs);
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 1);
  CHECK(wcs[0].status == IBV_WC_RETRY_EXC_ERR);
  CHECK(a.qp->state() == IBV_QPS_ERR);
  CHECK(a.qp->stats().ack_timeouts == 3);           // the first try and two retries
  CHECK(a.qp->stats().packets_sent == 3);
  CHECK(a.qp->stats().packets_retransmitted == 2);
}
