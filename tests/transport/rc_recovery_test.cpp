// RC recovery and protection end to end: RNR NAK and its timer, remote access errors (both QPs
// to error, target memory unchanged), and delivery exactly once and in order over a link with
// bit errors (bit-exact PHY), the counters explaining the recovery.
#include <catch2/catch.hpp>

#include <cstring>

#include "tests/support/fabric_harness.h"
#include "tests/support/verbs_harness.h"
#include "tests/support/fire_at.h"

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
  fire_at(*a.hca, 1 * kUs, &go);
  fire_at(*b.hca, 25 * kUs, &late);  // after the first retry (at ~11 us), before the third (~33 us)
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
  fire_at(*a.hca, 1 * kUs, &go);
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
  fire_at(*a.hca, 1 * kUs, &go);
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
  fire_at(*a.hca, 1 * kUs, &go);
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

namespace {
// Sums the packets a port discarded for any reason.
template <typename Node>
std::uint64_t discards(const Node& node, PortNum port) {
  std::uint64_t n = 0;
  for (int r = 0; r < static_cast<int>(DropReason::kCount); ++r) n += node.port_discards(port, static_cast<DropReason>(r));
  return n;
}

// `msgs` RC SENDs of `len` bytes (a multiple of the PMTU, 4096) from h1 to h2 through sw1, every
// link bit-exact with bit errors at `ber`, payload bytes carried. Asserts delivery exactly once, in
// order, bytes intact, and that the counters account for every packet lost on the wire.
void lossy_rc(int msgs, std::uint32_t len, double ber, std::uint64_t seed, Time duration) {
  FabricOptions o = with_data();
  o.phy.bit_exact = true;
  o.phy.bit_error_rate = ber;
  o.seed = seed;
  Fabric& f = build_fabric(kTwoHosts, o);
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Switch& sw = *f.switch_at(0);
  const std::uint32_t kLen = len;
  const std::uint64_t total = std::uint64_t{kLen} * static_cast<std::uint64_t>(msgs);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, total, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, total, IBV_ACCESS_LOCAL_WRITE);
  RcParams prm;
  prm.timeout = 4;  // 65.5 us
  connect(a, b, prm);
  std::uint8_t* src = h1.memory().bytes(a.buf, total);
  for (std::uint64_t i = 0; i < total; ++i) src[i] = static_cast<std::uint8_t>(i * 131 + (i >> 13));
  for (int m = 0; m < msgs; ++m) {
    ibv_recv_wr r;
    r.wr_id = static_cast<std::uint64_t>(m);
    r.sg_list = {b.sge(std::uint64_t{kLen} * m, kLen)};
    REQUIRE(h2.post_recv(*b.qp, r) == 0);
  }
  At go([&] {
    for (int m = 0; m < msgs; ++m) REQUIRE(h1.post_send(*a.qp, send_wr(a, std::uint64_t{kLen} * m, kLen, m)) == 0);
  });
  fire_at(h1, 1 * kUs, &go);
  run_for(f, duration);
  auto sw_wc = a.poll_all();
  auto rw = b.poll_all();
  REQUIRE(sw_wc.size() == static_cast<std::size_t>(msgs));
  REQUIRE(rw.size() == static_cast<std::size_t>(msgs));
  for (int m = 0; m < msgs; ++m) {
    CHECK(sw_wc[m].status == IBV_WC_SUCCESS);
    CHECK(sw_wc[m].wr_id == static_cast<std::uint64_t>(m));
    CHECK(rw[m].status == IBV_WC_SUCCESS);
    CHECK(rw[m].wr_id == static_cast<std::uint64_t>(m));  // in order: the m-th message in the m-th buffer
    CHECK(rw[m].byte_len == kLen);
  }
  CHECK(std::memcmp(src, h2.memory().bytes(b.buf, total), total) == 0);

  // Packets lost on the wire, as the link layer (PHY, VCRC, EBP) and the destination's ICRC check
  // counted them: requests on h1 -> sw1 (discarded at sw1's port 1) or sw1 -> h2 (at h2); responses
  // on h2 -> sw1 (sw1's port 2) or sw1 -> h1 (at h1). A packet stomped at sw1 is counted once, at h2
  // or h1, where it is finally dropped.
  const std::uint64_t lost_req = discards(sw, 1) + discards(h2, 1);
  const std::uint64_t lost_resp = discards(sw, 2) + discards(h1, 1);
  const QpStats& s = a.qp->stats();
  const QpStats& r = b.qp->stats();
  const std::uint64_t new_pkts = std::uint64_t{len / 4096} * static_cast<std::uint64_t>(msgs);
  INFO("lost requests " << lost_req << ", lost responses " << lost_resp << "; requester: sent " << s.packets_sent
                        << ", retransmitted " << s.packets_retransmitted << ", NAK-seq " << s.naks_seq_received
                        << ", timeouts " << s.ack_timeouts << ", ACKs " << s.acks_received << ", stale "
                        << s.stale_responses << "; responder: out of sequence "
                        << r.out_of_sequence_dropped << ", duplicates " << r.duplicates_received << ", NAK-seq sent "
                        << r.naks_seq_sent << ", ACKs " << r.acks_sent);
  // Every packet sent is new or sent again.
  CHECK(s.packets_sent == new_pkts + s.packets_retransmitted);
  // Every request sent was lost on the wire or reached b's QP ...
  CHECK(s.packets_sent == lost_req + h2.stats().received_packets);
  // ... which executed each PSN once and took every other arrival as ahead of ePSN (behind a lost
  // one) or as a duplicate (resent after a lost response or a timeout).
  CHECK(h2.stats().received_packets == new_pkts + r.out_of_sequence_dropped + r.duplicates_received);
  // So every retransmission is accounted for:
  CHECK(s.packets_retransmitted == lost_req + r.out_of_sequence_dropped + r.duplicates_received);
  // Every response b sent (ACKs, NAK-seqs) was lost on the wire or reached a.
  CHECK(r.packets_sent == r.acks_sent + r.naks_seq_sent);
  CHECK(r.packets_sent == lost_resp + h1.stats().received_packets);
  // ... where a counted each as an ACK, a NAK-seq, or a late copy of something already made up for.
  CHECK(h1.stats().received_packets == s.acks_received + s.naks_seq_received + s.stale_responses);
  // What set off the recoveries: each NAK-seq needs a request lost since the last one (one NAK per
  // gap), a NAK reaching a was sent by b, and each timeout needs a loss no NAK or ACK made up for.
  CHECK(r.naks_seq_sent <= lost_req);
  CHECK(s.naks_seq_received <= r.naks_seq_sent);
  CHECK(r.naks_seq_sent - s.naks_seq_received <= lost_resp);
  CHECK(s.ack_timeouts <= lost_req + lost_resp);
  if (lost_req > 0) CHECK(s.naks_seq_received + s.ack_timeouts > 0);
  if (lost_req + lost_resp == 0) CHECK(s.packets_retransmitted == 0);
  CHECK(s.retry_exceeded == 0);
  // Bit errors did hit requests, and the protocol recovered them.
  CHECK(lost_req > 0);
  CHECK(s.packets_retransmitted > 0);
}
}  // namespace

TEST_CASE("RC over links with BER 1e-6 (bit-exact PHY): 200 SENDs of 8 KiB arrive exactly once, in order, bytes "
          "intact, and every retransmission is explained by a packet lost on the wire",
          "[transport][rc]") {
  lossy_rc(200, 8192, 1e-6, 7, 20 * kMs);
}

TEST_CASE("RC over links with BER 1e-6 (bit-exact PHY), long run: 1000 SENDs of 32 KiB, exactly once, in order, and "
          "the counters explain the recovery",
          "[transport][rc][long]") {
  lossy_rc(1000, 32768, 1e-6, 11, 200 * kMs);
}
