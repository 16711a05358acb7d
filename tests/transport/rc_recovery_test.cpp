// RC recovery and protection end to end: RNR NAK and its timer, remote access errors (both QPs
// to error, target memory unchanged), and delivery exactly once and in order over a link with
// bit errors (bit-exact PHY), the counters explaining the recovery.
#include <catch2/catch.hpp>

#include <cstring>

#include "tests/support/fabric_harness.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
ibv_send_wr send_wr(const Endpoint& a, std::uint64_t offset, std::uint32_t len, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = {a.sge(offset, len)};
  return wr;
}
}  // namespace

TEST_CASE("RC SEND before the receive is posted: RNR NAK, retry after the RNR timer, delivered once",
          "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  RcParams prm;
  prm.min_rnr_timer = 1;  // 10 us
  connect(a, b, prm);
  std::memset(a.hca->memory().bytes(a.buf, 1000), 0xAB, 1000);
  At go([&] { REQUIRE(a.hca->post_send(*a.qp, send_wr(a, 0, 1000, 1)) == 0); });
  At late([&] {
    ibv_recv_wr r;
    r.wr_id = 2;
    r.sg_list = {b.sge(0, 4096)};
    REQUIRE(b.hca->post_recv(*b.qp, r) == 0);
  });
  a.hca->schedule(1 * kUs, &go, 0);
  b.hca->schedule(25 * kUs, &late, 0);  // after the first retry (at ~11 us), before the third (~33 us)
  run_for(f, 1 * kMs);
  auto sw = a.poll_all();
  REQUIRE(sw.size() == 1);
  CHECK(sw[0].status == IBV_WC_SUCCESS);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK(rw[0].byte_len == 1000);
  CHECK(b.hca->memory().bytes(b.buf, 1000)[999] == 0xAB);
  CHECK(a.qp->stats().rnr_naks_received == 3);
  CHECK(b.qp->stats().rnr_naks_sent == 3);
  CHECK(a.qp->stats().packets_sent == 4);
}

TEST_CASE("RC RNR with rnr_retry 1: the second RNR NAK ends in IBV_WC_RNR_RETRY_EXC_ERR", "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, no_training());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  RcParams prm;
  prm.rnr_retry = 1;
  connect(a, b, prm);
  At go([&] { REQUIRE(a.hca->post_send(*a.qp, send_wr(a, 0, 100, 1)) == 0); });
  a.hca->schedule(1 * kUs, &go, 0);
  run_for(f, 1 * kMs);
  auto sw = a.poll_all();
  REQUIRE(sw.size() == 1);
  CHECK(sw[0].status == IBV_WC_RNR_RETRY_EXC_ERR);
  CHECK(a.qp->state() == IBV_QPS_ERR);
  CHECK(a.qp->stats().rnr_naks_received == 2);
}

TEST_CASE("RC WRITE with a wrong R_Key: NAK remote access error, IBV_WC_REM_ACCESS_ERR, both QPs in error, memory unchanged",
          "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  std::memset(a.hca->memory().bytes(a.buf, 8192), 0x11, 8192);
  std::memset(b.hca->memory().bytes(b.buf, 8192), 0x22, 8192);
  At go([&] {
    auto wr = write_wr(a, b, 0, 6000, 1);
    wr.rdma.rkey ^= 0x100;  // names another (absent) region
    REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
    REQUIRE(a.hca->post_send(*a.qp, write_wr(a, b, 0, 100, 2)) == 0);  // flushed
  });
  a.hca->schedule(1 * kUs, &go, 0);
  run_for(f, 1 * kMs);
  auto sw = a.poll_all();
  REQUIRE(sw.size() == 2);
  CHECK(sw[0].status == IBV_WC_REM_ACCESS_ERR);
  CHECK(sw[1].status == IBV_WC_WR_FLUSH_ERR);
  CHECK(a.qp->state() == IBV_QPS_ERR);
  CHECK(b.qp->state() == IBV_QPS_ERR);
  CHECK(b.qp->stats().remote_access_errors == 1);
  const std::uint8_t* t = b.hca->memory().bytes(b.buf, 8192);
  CHECK(std::all_of(t, t + 8192, [](std::uint8_t x) { return x == 0x22; }));
}

TEST_CASE("RC WRITE out of bounds and READ without remote-read access are both rejected, memory unchanged",
          "[transport][rc]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  Endpoint c = make_endpoint(*f.hca(1), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  Endpoint d = make_endpoint(*f.hca(2), IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  connect(c, d);
  std::memset(b.hca->memory().bytes(b.buf, 8192), 0x22, 8192);
  std::memset(d.hca->memory().bytes(d.buf, 8192), 0x33, 8192);
  At go([&] {
    auto wr = write_wr(a, b, 0, 4097, 1);
    wr.rdma.remote_addr = b.buf + 4096;  // 4097 bytes from there: one byte past the region's end
    REQUIRE(a.hca->post_send(*a.qp, wr) == 0);
    ibv_send_wr rd;
    rd.wr_id = 2;
    rd.opcode = IBV_WR_RDMA_READ;
    rd.sg_list = {c.sge(0, 64)};
    rd.rdma.remote_addr = d.buf;
    rd.rdma.rkey = d.mr.rkey;  // the MR grants remote write, not read
    REQUIRE(c.hca->post_send(*c.qp, rd) == 0);
  });
  a.hca->schedule(1 * kUs, &go, 0);
  run_for(f, 1 * kMs);
  auto w1 = a.poll_all();
  auto w2 = c.poll_all();
  REQUIRE(w1.size() == 1);
  REQUIRE(w2.size() == 1);
  CHECK(w1[0].status == IBV_WC_REM_ACCESS_ERR);
  CHECK(w2[0].status == IBV_WC_REM_ACCESS_ERR);
  const std::uint8_t* t = b.hca->memory().bytes(b.buf, 8192);
  CHECK(std::all_of(t, t + 8192, [](std::uint8_t x) { return x == 0x22; }));
  const std::uint8_t* u = c.hca->memory().bytes(c.buf, 64);
  CHECK(std::all_of(u, u + 64, [](std::uint8_t x) { return x == 0; }));
}

TEST_CASE("RC over a link with BER 1e-6: 200 SENDs of 8 KiB arrive exactly once, in order, bytes intact",
          "[transport][rc]") {
  FabricOptions o = with_data();
  o.phy.bit_exact = true;
  o.phy.bit_error_rate = 1e-6;
  o.seed = 7;
  Fabric& f = build_fabric(kTwoHosts, o);
  constexpr int kMsgs = 200;
  constexpr std::uint32_t kLen = 8192;
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, kLen * kMsgs, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, kLen * kMsgs, IBV_ACCESS_LOCAL_WRITE);
  RcParams prm;
  prm.timeout = 4;  // 65.5 us
  connect(a, b, prm);
  std::uint8_t* src = a.hca->memory().bytes(a.buf, kLen * kMsgs);
  for (std::uint32_t i = 0; i < kLen * kMsgs; ++i) src[i] = static_cast<std::uint8_t>(i * 131 + (i >> 13));
  for (int m = 0; m < kMsgs; ++m) {
    ibv_recv_wr r;
    r.wr_id = static_cast<std::uint64_t>(m);
    r.sg_list = {b.sge(std::uint64_t{kLen} * m, kLen)};
    REQUIRE(b.hca->post_recv(*b.qp, r) == 0);
  }
  At go([&] {
    for (int m = 0; m < kMsgs; ++m) REQUIRE(a.hca->post_send(*a.qp, send_wr(a, std::uint64_t{kLen} * m, kLen, m)) == 0);
  });
  a.hca->schedule(1 * kUs, &go, 0);
  run_for(f, 20 * kMs);
  auto sw = a.poll_all();
  auto rw = b.poll_all();
  REQUIRE(sw.size() == kMsgs);
  REQUIRE(rw.size() == kMsgs);
  for (int m = 0; m < kMsgs; ++m) {
    CHECK(sw[m].status == IBV_WC_SUCCESS);
    CHECK(sw[m].wr_id == static_cast<std::uint64_t>(m));
    CHECK(rw[m].status == IBV_WC_SUCCESS);
    CHECK(rw[m].wr_id == static_cast<std::uint64_t>(m));  // in order: the m-th message in the m-th buffer
    CHECK(rw[m].byte_len == kLen);
  }
  CHECK(std::memcmp(src, b.hca->memory().bytes(b.buf, kLen * kMsgs), kLen * kMsgs) == 0);
  // Bit errors did hit: packets were lost and the protocol recovered them.
  const QpStats& s = a.qp->stats();
  INFO("retransmitted " << s.packets_retransmitted << " nak_seq " << s.naks_seq_received << " timeouts "
                        << s.ack_timeouts);
  CHECK(s.packets_retransmitted > 0);
  CHECK(s.naks_seq_received + s.ack_timeouts > 0);
  CHECK(s.packets_sent == 2 * kMsgs + s.packets_retransmitted);
  CHECK(f.ledger().dropped_count(DropReason::kVcrcError) + f.ledger().dropped_count(DropReason::kPhyError) +
            f.ledger().dropped_count(DropReason::kIcrcError) >
        0);
}
