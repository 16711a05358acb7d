// Reliable Connected service, R26-R34 (ch9, ch10). Each test either plays the peer of a real QP
// with crafted packets (Hca::send_raw: requests with chosen PSNs, ACKs and NAKs at chosen times)
// or runs two real QPs, and reads the exact packets each side puts on the wire.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cmath>
#include <cstring>

#include "sim/transport/transport_timers.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/transport_wire.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
constexpr std::uint8_t kAck = 0x1F;     // ACK, credit code 31 (no end-to-end credits)
constexpr std::uint8_t kNakSeq = 0x60;  // NAK, PSN sequence error
constexpr std::uint8_t kNakInv = 0x61;  // NAK, invalid request
constexpr std::uint8_t kNakAcc = 0x62;  // NAK, remote access error
constexpr Time kWireToCompletion = 250 * kNs;  // HcaConfig default

const unsigned kAllRemote = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ |
                            IBV_ACCESS_REMOTE_ATOMIC;

ibv_send_wr send_wr(const Endpoint& a, std::uint64_t offset, std::uint32_t len, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  if (len > 0) wr.sg_list = {a.sge(offset, len)};
  return wr;
}

ibv_send_wr read_wr(const Endpoint& a, const Endpoint& b, std::uint64_t offset, std::uint32_t len, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_RDMA_READ;
  wr.send_flags = IBV_SEND_SIGNALED;
  if (len > 0) wr.sg_list = {a.sge(offset, len)};
  wr.rdma.remote_addr = b.buf + offset;
  wr.rdma.rkey = b.mr.rkey;
  return wr;
}

ibv_send_wr atomic_wr(const Endpoint& a, const Endpoint& b, ibv_wr_opcode opcode, std::uint64_t local_offset,
                      std::uint64_t remote_offset, std::uint64_t compare_add, std::uint64_t swap, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = opcode;
  wr.send_flags = IBV_SEND_SIGNALED;
  wr.sg_list = {a.sge(local_offset, 8)};
  wr.atomic.remote_addr = b.buf + remote_offset;
  wr.atomic.rkey = b.mr.rkey;
  wr.atomic.compare_add = compare_add;
  wr.atomic.swap = swap;
  return wr;
}

// The packets of `log` addressed to QP `qpn`.
std::vector<WirePacket> to_qp(const std::vector<WirePacket>& log, Qpn qpn) {
  std::vector<WirePacket> out;
  for (const auto& w : log)
    if (w.parsed.h.bth.dest_qp == qpn) out.push_back(w);
  return out;
}

// Records the state and ACK-timeout count of a QP at chosen instants.
struct Probe {
  Time at;
  std::uint64_t timeouts;
  ibv_qp_state state;
};
}  // namespace

TEST_CASE("R26 (ch9): the responder executes the request at ePSN, NAKs the first one ahead with a PSN sequence "
          "error carrying ePSN, then drops until ePSN arrives (24-bit PSNs across the wrap)",
          "[compliance][R26][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kAllRemote);
  RcParams prm;
  prm.a_psn = 0xFFFFFE;  // b expects 0xFFFFFE: two PSNs before the wrap
  connect(a, b, prm);
  std::memset(h2.memory().bytes(b.buf, 64), 0, 64);
  WireLog wire;
  h2.set_send_observer(&wire);
  Timeline tl;
  // WRITE Only i (at i+1 us) writes the byte i+1 into slot i (4 bytes at b.buf + 4i).
  const Psn psns[] = {0x000000, 0x000001, 0xFFFFFF, 0xFFFFFE, 0x000000, 0xFFFFFF, 0x000000};
  for (int i = 0; i < 7; ++i) {
    const std::uint8_t v[4] = {static_cast<std::uint8_t>(i + 1), 0, 0, 0};
    tl.send(h1, static_cast<Time>(i + 1) * kUs, write_only(h1, b, kOpcodeRcBase, psns[i], b.buf + 4 * i, 4, v));
  }
  run_for(f, 20 * kUs);
  // ePSN 0xFFFFFE: 0x000000 is 2 ahead (NAK with 0xFFFFFE), 0x000001 and 0xFFFFFF are dropped
  // silently, 0xFFFFFE executes (ACK); ePSN 0xFFFFFF: 0x000000 is 1 ahead (a new NAK, since ePSN
  // arrived in between), then 0xFFFFFF and 0x000000 execute. MSN counts executed messages.
  struct Expect {
    std::uint8_t syndrome;
    Psn psn;
    std::uint32_t msn;
  };
  const Expect expect[] = {{kNakSeq, 0xFFFFFE, 0}, {kAck, 0xFFFFFE, 1}, {kNakSeq, 0xFFFFFF, 1}, {kAck, 0xFFFFFF, 2},
                           {kAck, 0x000000, 3}};
  REQUIRE(wire.sent.size() == 5);
  for (int i = 0; i < 5; ++i) {
    INFO("response " << i);
    CHECK(wire.sent[i].opcode() == op::kAcknowledge);
    CHECK(wire.sent[i].syndrome() == expect[i].syndrome);
    CHECK(wire.sent[i].psn() == expect[i].psn);
    CHECK(wire.sent[i].parsed.h.aeth.msn == expect[i].msn);
    CHECK(wire.sent[i].parsed.h.bth.dest_qp == a.qp->qpn());
  }
  const std::uint8_t* m = h2.memory().bytes(b.buf, 28);
  for (int i = 0; i < 7; ++i) CHECK(m[4 * i] == (i == 3 || i == 5 || i == 6 ? i + 1 : 0));
  CHECK(b.qp->stats().out_of_sequence_dropped == 4);
  CHECK(b.qp->stats().naks_seq_sent == 2);
  CHECK(b.qp->stats().duplicates_received == 0);
  CHECK(b.qp->state() == IBV_QPS_RTS);
}

TEST_CASE("R26 (ch9): duplicates are answered, never re-executed: a WRITE is re-ACKed, a READ re-read, an atomic "
          "gets its saved result",
          "[compliance][R26][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kAllRemote);
  connect(a, b);  // b expects 0x100
  std::uint8_t* m = h2.memory().bytes(b.buf, 4096);
  std::memset(m, 0, 4096);
  std::memset(m + 64, 0x11, 8);     // what the READ reads first
  h2.memory().store64(b.buf + 128, 100);  // the atomic's operand
  WireLog wire;
  h2.set_send_observer(&wire);
  Timeline tl;
  const std::uint8_t one[4] = {1, 1, 1, 1}, two[4] = {2, 2, 2, 2};
  TransportHeaders rd = headers_to(h1, h2, b.qp->qpn(), op::kRdmaReadRequest, 0x101);
  rd.reth = {b.buf + 64, b.mr.rkey, 8};
  TransportHeaders fa = headers_to(h1, h2, b.qp->qpn(), op::kFetchAdd, 0x102);
  fa.atomic_eth = {b.buf + 128, b.mr.rkey, 5, 0};
  TransportHeaders fa_dup = fa;
  fa_dup.atomic_eth.swap_add = 1000;
  tl.send(h1, 1 * kUs, write_only(h1, b, kOpcodeRcBase, 0x100, b.buf, 4, one));
  tl.send(h1, 2 * kUs, craft(rd));
  tl.send(h1, 3 * kUs, craft(fa));
  tl.send(h1, 4 * kUs, write_only(h1, b, kOpcodeRcBase, 0x100, b.buf, 4, two));  // duplicate, other data
  tl.at(h2, 4500 * kNs, [&] { std::memset(h2.memory().bytes(b.buf + 64, 8), 0x22, 8); });
  tl.send(h1, 5 * kUs, craft(rd));      // duplicate READ: reads the memory as it is now
  tl.send(h1, 6 * kUs, craft(fa_dup));  // duplicate FetchAdd, other addend
  run_for(f, 20 * kUs);
  REQUIRE(wire.sent.size() == 6);
  const std::uint8_t ops[] = {op::kAcknowledge, op::kRdmaReadRespOnly, op::kAtomicAcknowledge,
                              op::kAcknowledge, op::kRdmaReadRespOnly, op::kAtomicAcknowledge};
  const Psn psns[] = {0x100, 0x101, 0x102, 0x102, 0x101, 0x102};  // a duplicate WRITE is ACKed at ePSN - 1
  for (int i = 0; i < 6; ++i) {
    INFO("response " << i);
    CHECK(wire.sent[i].opcode() == ops[i]);
    CHECK(wire.sent[i].psn() == psns[i]);
    CHECK(wire.sent[i].has(kExtAeth));
    CHECK(wire.sent[i].syndrome() == kAck);
  }
  CHECK(wire.sent[1].payload == std::vector<std::uint8_t>(8, 0x11));
  CHECK(wire.sent[4].payload == std::vector<std::uint8_t>(8, 0x22));
  CHECK(wire.sent[2].parsed.h.atomic_ack_eth.orig_data == 100);
  CHECK(wire.sent[5].parsed.h.atomic_ack_eth.orig_data == 100);
  CHECK(std::memcmp(m, one, 4) == 0);             // the duplicate WRITE changed nothing
  CHECK(h2.memory().load64(b.buf + 128) == 105);  // one FetchAdd of 5, not 1005 more
  CHECK(b.qp->stats().duplicates_received == 3);
  CHECK(b.qp->state() == IBV_QPS_RTS);
}

TEST_CASE("R27 (ch9): a NAK PSN sequence error acknowledges everything before its PSN and makes the requester "
          "send again from that PSN on (go-back-N)",
          "[compliance][R27][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kAllRemote);
  RcParams prm;
  prm.mtu = IBV_MTU_256;
  connect(a, b, prm);
  reset_qp(b);  // the test answers for b
  std::uint8_t* src = h1.memory().bytes(a.buf, 2048);
  for (int i = 0; i < 2048; ++i) src[i] = static_cast<std::uint8_t>(i * 7 + 3);
  WireLog wire;
  h1.set_send_observer(&wire);
  RxLog rx;
  h1.set_delivery_observer(&rx);
  CompletionLog done;
  done.hca = &h1;
  h1.cq(a.cq).set_listener(&done);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 0, 100, 1)) == 0);     // PSN 0x100
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 512, 1000, 2)) == 0);  // PSNs 0x101-0x104
  });
  tl.send(h2, 10 * kUs, aeth_to(h2, a, 0x102, kNakSeq, 1));  // 0x102 "did not arrive"
  tl.send(h2, 20 * kUs, aeth_to(h2, a, 0x104, kAck, 2));
  run_for(f, 40 * kUs);
  const Psn psns[] = {0x100, 0x101, 0x102, 0x103, 0x104, 0x102, 0x103, 0x104};
  const std::uint8_t ops[] = {op::kRdmaWriteOnly,   op::kRdmaWriteFirst,  op::kRdmaWriteMiddle, op::kRdmaWriteMiddle,
                              op::kRdmaWriteLast,   op::kRdmaWriteMiddle, op::kRdmaWriteMiddle, op::kRdmaWriteLast};
  REQUIRE(wire.sent.size() == 8);
  for (int i = 0; i < 8; ++i) {
    INFO("packet " << i);
    CHECK(wire.sent[i].psn() == psns[i]);
    CHECK(wire.sent[i].opcode() == ops[i]);
  }
  for (int i = 5; i < 8; ++i) CHECK(wire.sent[i].payload == wire.sent[i - 3].payload);  // the same bytes again
  REQUIRE(rx.got.size() == 2);
  const Time nak = rx.got[0].at, ack = rx.got[1].at;
  CHECK(wire.sent[4].at < nak);   // all sent before the NAK came
  CHECK(wire.sent[5].at >= nak);  // and the resend only after it
  // The NAK completes WQE 1 (PSN 0x100 < 0x102) at once; WQE 2 completes with the ACK.
  REQUIRE(done.entries.size() == 2);
  CHECK(done.entries[0].wc.wr_id == 1);
  CHECK(done.entries[0].wc.status == IBV_WC_SUCCESS);
  CHECK(done.entries[0].at == nak + kWireToCompletion);
  CHECK(done.entries[1].wc.wr_id == 2);
  CHECK(done.entries[1].wc.status == IBV_WC_SUCCESS);
  CHECK(done.entries[1].at == ack + kWireToCompletion);
  const QpStats& s = a.qp->stats();
  CHECK(s.naks_seq_received == 1);
  CHECK(s.packets_sent == 8);
  CHECK(s.packets_retransmitted == 3);
  CHECK(s.ack_timeouts == 0);
}

TEST_CASE("R28 (ch9): the local ACK timer runs 4.096 us x 2^timeout from the request's first symbol on the wire, "
          "retry_cnt exhausted completes with IBV_WC_RETRY_EXC_ERR and the QP is in ERR from that instant",
          "[compliance][R28][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 1 << 15, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 1 << 15, kAllRemote);
  Endpoint c = make_endpoint(h1, IBV_QPT_RC, 1 << 15, IBV_ACCESS_LOCAL_WRITE);
  Endpoint d = make_endpoint(h2, IBV_QPT_RC, 1 << 15, kAllRemote);
  RcParams prm;
  prm.timeout = 1;  // 4.096 us x 2^1
  prm.retry_cnt = 2;
  connect(a, b, prm);
  connect(c, d);
  reset_qp(b);  // never answers
  constexpr Time kT = 8'192 * kNs;
  REQUIRE(local_ack_timeout(1) == kT);
  CompletionLog done;
  done.hca = &h1;
  h1.cq(a.cq).set_listener(&done);
  // On each of a's packets, probe a just before and just after the instant its timer must expire.
  struct Watch : SendObserver {
    Hca* hca;
    QueuePair* qp;
    Qpn dest;
    Timeline* tl;
    std::vector<Time> sent, others;
    std::vector<Probe> probes;
    void on_injected(Hca&, const Packet& p) override {
      const Bth bth = parse_transport_packet(p).h.bth;
      if (bth.dest_qp != dest) return others.push_back(p.injected);
      if (bth.psn != 0x100) return;  // the second WQE (0x101) follows each try of the first
      sent.push_back(p.injected);
      for (Time t : {p.injected + kT - 1, p.injected + kT + 1})
        tl->at(*hca, t, [this, t] { probes.push_back({t, qp->stats().ack_timeouts, qp->state()}); });
    }
  } watch;
  Timeline tl;
  watch.hca = &h1, watch.qp = a.qp, watch.dest = b.qp->qpn(), watch.tl = &tl;
  h1.set_send_observer(&watch);
  // c's 16 KiB WRITE goes first on the same port and VL: a's 64-byte WRITE waits behind it after
  // it is built, so "built" and "on the wire" differ.
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*c.qp, write_wr(c, d, 0, 16384, 9)) == 0);
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 0, 64, 1)) == 0);
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 64, 64, 2)) == 0);  // PSN 0x101, flushed at the end
  });
  run_for(f, 100 * kUs);
  // The first try and retry_cnt = 2 retries; each retry follows the expiry of the previous timer.
  REQUIRE(watch.sent.size() == 3);
  REQUIRE(!watch.others.empty());
  CHECK(watch.sent[0] > watch.others[0]);
  CHECK(watch.sent[1] > watch.sent[0] + kT);
  CHECK(watch.sent[2] > watch.sent[1] + kT);
  REQUIRE(watch.probes.size() == 6);
  for (int k = 0; k < 3; ++k) {
    INFO("try " << k);
    CHECK(watch.probes[2 * k].at == watch.sent[k] + kT - 1);
    CHECK(watch.probes[2 * k].timeouts == static_cast<std::uint64_t>(k));  // not yet expired
    CHECK(watch.probes[2 * k].state == IBV_QPS_RTS);
    CHECK(watch.probes[2 * k + 1].timeouts == static_cast<std::uint64_t>(k + 1));  // expired exactly at +T
  }
  CHECK(watch.probes[3].state == IBV_QPS_RTS);
  CHECK(watch.probes[5].state == IBV_QPS_ERR);
  REQUIRE(done.entries.size() == 2);
  CHECK(done.entries[0].wc.wr_id == 1);
  CHECK(done.entries[0].wc.status == IBV_WC_RETRY_EXC_ERR);
  CHECK(done.entries[0].at == watch.sent[2] + kT + kWireToCompletion);
  CHECK(done.entries[1].wc.wr_id == 2);
  CHECK(done.entries[1].wc.status == IBV_WC_WR_FLUSH_ERR);
  CHECK(a.qp->stats().packets_retransmitted == 4);  // both WQEs, twice
  CHECK(a.qp->stats().retry_exceeded == 1);
  CHECK(c.poll_all().size() == 1);  // c's WRITE is unaffected
}

TEST_CASE("R28 (ch9): local ACK timeout codes are 4.096 us x 2^code, and code 0 never expires",
          "[compliance][R28][ch9]") {
  CHECK(local_ack_timeout(1) == 8'192'000'000ull);
  CHECK(local_ack_timeout(14) == 4'096'000'000ull * 16384);  // 67.108864 ms
  CHECK(local_ack_timeout(31) == 4'096'000'000ull << 31);    // 8796 s
  CHECK(local_ack_timeout(0) == kTimeNever);
  Fabric& f = build_fabric(kTwoHosts, no_training());
  Endpoint a = make_endpoint(*f.hca(1), IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(*f.hca(2), IBV_QPT_RC, 4096, kAllRemote);
  RcParams prm;
  prm.timeout = 0;
  prm.retry_cnt = 0;
  connect(a, b, prm);
  reset_qp(b);
  Timeline tl;
  tl.at(*a.hca, 1 * kUs, [&] { REQUIRE(a.hca->post_send(*a.qp, write_wr(a, b, 0, 64, 1)) == 0); });
  run_for(f, 100 * kMs);
  CHECK(a.qp->stats().packets_sent == 1);
  CHECK(a.qp->stats().ack_timeouts == 0);
  CHECK(a.qp->state() == IBV_QPS_RTS);
  CHECK(a.poll_all().empty());
}

TEST_CASE("R29 (ch9): an RNR NAK carries the responder's RNR timer, the requester resends exactly that long after "
          "it, and rnr_retry 7 retries without limit",
          "[compliance][R29][ch9]") {
  FabricOptions o = with_data();
  o.phy.skip_interval_edges = 0;  // no SKIP may delay a resend: each is on the first edge after its timer
  Fabric& f = build_fabric(kTwoHosts, o);
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  RcParams prm;
  prm.min_rnr_timer = 2;  // 0.02 ms
  prm.rnr_retry = 7;
  connect(a, b, prm);
  WireLog sent, answers;
  h1.set_send_observer(&sent);
  h2.set_send_observer(&answers);
  RxLog rx;
  h1.set_delivery_observer(&rx);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] { REQUIRE(h1.post_send(*a.qp, send_wr(a, 0, 0, 1)) == 0); });  // 0 bytes: no DMA
  tl.at(h2, 200 * kUs, [&] {
    ibv_recv_wr r;
    r.wr_id = 5;
    r.sg_list = {b.sge(0, 64)};
    REQUIRE(h2.post_recv(*b.qp, r) == 0);
  });
  run_for(f, 400 * kUs);
  const std::size_t n = answers.sent.size() - 1;  // RNR NAKs, then the ACK
  REQUIRE(n > 7);                                  // more than any finite rnr_retry allows
  for (std::size_t k = 0; k < n; ++k) {
    INFO("RNR NAK " << k);
    CHECK(answers.sent[k].opcode() == op::kAcknowledge);
    CHECK(answers.sent[k].syndrome() == 0x22);  // RNR NAK, timer code 2
    CHECK(answers.sent[k].psn() == 0x100);
  }
  CHECK(answers.sent[n].syndrome() == kAck);
  REQUIRE(sent.sent.size() == n + 1);
  REQUIRE(rx.got.size() == n + 1);
  const SymbolClock& clk = h1.port().clock();
  for (std::size_t k = 0; k < n; ++k) {
    INFO("resend " << k + 1);
    CHECK(sent.sent[k + 1].psn() == 0x100);
    CHECK(sent.sent[k + 1].at == clk.edge_at_or_after(rx.got[k].at + 20 * kUs));
  }
  CHECK(sent.sent[n - 1].at < 200 * kUs);  // the last one NAKed left before the receive was posted
  auto sw = a.poll_all();
  REQUIRE(sw.size() == 1);
  CHECK(sw[0].status == IBV_WC_SUCCESS);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK(rw[0].wr_id == 5);
  CHECK(a.qp->stats().rnr_naks_received == n);
  CHECK(b.qp->stats().rnr_naks_sent == n);
}

TEST_CASE("R29 (ch9): with rnr_retry 3 the fourth RNR NAK completes the request with IBV_WC_RNR_RETRY_EXC_ERR and "
          "puts the QP in ERR at its arrival",
          "[compliance][R29][ch9]") {
  FabricOptions o = no_training();
  o.phy.skip_interval_edges = 0;
  Fabric& f = build_fabric(kTwoHosts, o);
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  RcParams prm;
  prm.min_rnr_timer = 1;  // 0.01 ms
  prm.rnr_retry = 3;
  connect(a, b, prm);
  WireLog sent;
  h1.set_send_observer(&sent);
  RxLog rx;
  h1.set_delivery_observer(&rx);
  CompletionLog done;
  done.hca = &h1;
  h1.cq(a.cq).set_listener(&done);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, send_wr(a, 0, 0, 1)) == 0);
    REQUIRE(h1.post_send(*a.qp, send_wr(a, 0, 0, 2)) == 0);
  });
  run_for(f, 200 * kUs);
  // Each round a sends both SENDs (PSNs 0x100, 0x101): b answers the first with an RNR NAK and
  // the second, now ahead of its ePSN, with a NAK PSN sequence error (which a, waiting out the
  // RNR timer, takes as "resend from 0x100": what it does anyway).
  std::vector<WirePacket> rnr, first;
  for (const auto& w : rx.got)
    if (aeth_kind(w.syndrome()) == AethKind::kRnrNak) rnr.push_back(w);
  for (const auto& w : sent.sent)
    if (w.psn() == 0x100) first.push_back(w);
  REQUIRE(rnr.size() == 4);
  REQUIRE(first.size() == 4);
  const SymbolClock& clk = h1.port().clock();
  for (int k = 0; k < 4; ++k) {
    INFO("round " << k);
    CHECK(rnr[k].syndrome() == 0x21);
    CHECK(rnr[k].psn() == 0x100);
    if (k > 0) CHECK(first[k].at == clk.edge_at_or_after(rnr[k - 1].at + 10 * kUs));
  }
  REQUIRE(done.entries.size() == 2);
  CHECK(done.entries[0].wc.wr_id == 1);
  CHECK(done.entries[0].wc.status == IBV_WC_RNR_RETRY_EXC_ERR);
  CHECK(done.entries[0].at == rnr[3].at + kWireToCompletion);
  CHECK(done.entries[1].wc.status == IBV_WC_WR_FLUSH_ERR);
  CHECK(a.qp->state() == IBV_QPS_ERR);
  CHECK(b.qp->state() == IBV_QPS_RTS);  // not ready is not an error at the responder
  CHECK(a.qp->stats().rnr_naks_received == 4);
  CHECK(a.qp->stats().rnr_retry_exceeded == 1);
}

TEST_CASE("R29 (ch9): RNR timer codes 0-31 are the table of the spec, code 0 being 655.36 ms",
          "[compliance][R29][ch9]") {
  // The RNR timer codes of the AETH (IBA Vol1 ch. 9), in milliseconds.
  const double ms[32] = {655.36, 0.01, 0.02,  0.03,  0.04,  0.06,  0.08,   0.12,   0.16,   0.24,  0.32,
                         0.48,   0.64, 0.96,  1.28,  1.92,  2.56,  3.84,   5.12,   7.68,   10.24, 15.36,
                         20.48,  30.72, 40.96, 61.44, 81.92, 122.88, 163.84, 245.76, 327.68, 491.52};
  for (std::uint8_t c = 0; c < 32; ++c) {
    INFO("code " << int(c));
    CHECK(rnr_timer(c) == static_cast<Time>(std::llround(ms[c] * 1e12)));
  }
}

TEST_CASE("R30 (ch9): ACKs are cumulative: an ACK for PSN p completes every request up to p, and no more",
          "[compliance][R30][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kAllRemote);
  RcParams prm;
  prm.mtu = IBV_MTU_256;
  connect(a, b, prm);
  reset_qp(b);
  RxLog rx;
  h1.set_delivery_observer(&rx);
  CompletionLog done;
  done.hca = &h1;
  h1.cq(a.cq).set_listener(&done);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    for (std::uint64_t id = 1; id <= 3; ++id) REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 8 * id, 8, id)) == 0);
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 1024, 600, 4)) == 0);  // PSNs 0x103-0x105
  });
  tl.send(h2, 10 * kUs, aeth_to(h2, a, 0x100, kAck, 1));
  tl.send(h2, 20 * kUs, aeth_to(h2, a, 0x104, kAck, 3));  // inside WQE 4
  tl.send(h2, 30 * kUs, aeth_to(h2, a, 0x105, kAck, 4));
  run_for(f, 40 * kUs);
  REQUIRE(rx.got.size() == 3);
  const Time t1 = rx.got[0].at + kWireToCompletion, t2 = rx.got[1].at + kWireToCompletion,
             t3 = rx.got[2].at + kWireToCompletion;
  REQUIRE(done.entries.size() == 4);
  const std::pair<std::uint64_t, Time> expect[] = {{1, t1}, {2, t2}, {3, t2}, {4, t3}};
  for (int i = 0; i < 4; ++i) {
    INFO("completion " << i);
    CHECK(done.entries[i].wc.wr_id == expect[i].first);
    CHECK(done.entries[i].wc.status == IBV_WC_SUCCESS);
    CHECK(done.entries[i].at == expect[i].second);
  }
  CHECK(a.qp->stats().acks_received == 3);
  CHECK(a.qp->stats().packets_sent == 6);
  CHECK(a.qp->stats().packets_retransmitted == 0);
}

TEST_CASE("R31 (ch9): an RDMA READ of L bytes takes max(1, ceil(L / PMTU)) PSNs, answered in order with an AETH on "
          "First, Last and Only",
          "[compliance][R31][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 8192, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 8192, kAllRemote);
  RcParams prm;
  prm.mtu = IBV_MTU_1024;
  connect(a, b, prm);
  std::uint8_t* src = h2.memory().bytes(b.buf, 8192);
  for (int i = 0; i < 8192; ++i) src[i] = static_cast<std::uint8_t>(i * 29 + 5);
  WireLog req, resp;
  h1.set_send_observer(&req);
  h2.set_send_observer(&resp);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, read_wr(a, b, 0, 2500, 1)) == 0);     // 3 PSNs
    REQUIRE(h1.post_send(*a.qp, read_wr(a, b, 2600, 0, 2)) == 0);     // 1 PSN
    REQUIRE(h1.post_send(*a.qp, read_wr(a, b, 3000, 1024, 3)) == 0);  // 1 PSN
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 5000, 10, 4)) == 0);
  });
  run_for(f, 40 * kUs);
  REQUIRE(req.sent.size() == 4);
  const Psn req_psns[] = {0x100, 0x103, 0x104, 0x105};
  const std::uint32_t read_lens[] = {2500, 0, 1024};
  for (int i = 0; i < 4; ++i) {
    INFO("request " << i);
    CHECK(req.sent[i].psn() == req_psns[i]);
    CHECK(req.sent[i].opcode() == (i < 3 ? op::kRdmaReadRequest : op::kRdmaWriteOnly));
    if (i < 3) CHECK(req.sent[i].parsed.h.reth.dma_len == read_lens[i]);
  }
  struct Expect {
    std::uint8_t op;
    Psn psn;
    bool aeth;
    std::uint32_t len;
  };
  const Expect expect[] = {{op::kRdmaReadRespFirst, 0x100, true, 1024}, {op::kRdmaReadRespMiddle, 0x101, false, 1024},
                           {op::kRdmaReadRespLast, 0x102, true, 452},   {op::kRdmaReadRespOnly, 0x103, true, 0},
                           {op::kRdmaReadRespOnly, 0x104, true, 1024},  {op::kAcknowledge, 0x105, true, 0}};
  REQUIRE(resp.sent.size() == 6);
  for (int i = 0; i < 6; ++i) {
    INFO("response " << i);
    CHECK(resp.sent[i].opcode() == expect[i].op);
    CHECK(resp.sent[i].psn() == expect[i].psn);
    CHECK(resp.sent[i].has(kExtAeth) == expect[i].aeth);
    CHECK(resp.sent[i].parsed.payload_len == expect[i].len);
  }
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 4);
  for (int i = 0; i < 4; ++i) CHECK(wcs[i].status == IBV_WC_SUCCESS);
  CHECK(wcs[0].byte_len == 2500);
  CHECK(std::memcmp(h1.memory().bytes(a.buf, 2500), src, 2500) == 0);
  CHECK(std::memcmp(h1.memory().bytes(a.buf + 3000, 1024), src + 3000, 1024) == 0);
}

TEST_CASE("R32 (ch9): an atomic to a VA that is not 8-byte aligned is NAKed as an invalid request, memory untouched",
          "[compliance][R32][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kAllRemote);
  connect(a, b);
  h2.memory().store64(b.buf, 0x1111111111111111ull);
  h2.memory().store64(b.buf + 8, 0x2222222222222222ull);
  WireLog resp;
  h2.set_send_observer(&resp);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, atomic_wr(a, b, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 4, 1, 0, 1)) == 0);
  });
  run_for(f, 40 * kUs);
  REQUIRE(resp.sent.size() == 1);
  CHECK(resp.sent[0].syndrome() == kNakInv);
  CHECK(resp.sent[0].psn() == 0x100);
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 1);
  CHECK(wcs[0].status == IBV_WC_REM_INV_REQ_ERR);
  CHECK(a.qp->state() == IBV_QPS_ERR);
  CHECK(b.qp->state() == IBV_QPS_ERR);
  CHECK(h2.memory().load64(b.buf) == 0x1111111111111111ull);
  CHECK(h2.memory().load64(b.buf + 8) == 0x2222222222222222ull);
}

TEST_CASE("R32 (ch9): a duplicate atomic gets the saved original value and is not executed again",
          "[compliance][R32][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kAllRemote);
  connect(a, b);
  h2.memory().store64(b.buf, 100);
  WireLog resp;
  h2.set_send_observer(&resp);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, atomic_wr(a, b, IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 0, 5, 0, 1)) == 0);  // 100 -> 105
    REQUIRE(h1.post_send(*a.qp, atomic_wr(a, b, IBV_WR_ATOMIC_CMP_AND_SWP, 8, 0, 105, 7, 2)) == 0);  // 105 -> 7
  });
  // The same PSNs again, with other operands.
  TransportHeaders fa = headers_to(h1, h2, b.qp->qpn(), op::kFetchAdd, 0x100);
  fa.atomic_eth = {b.buf, b.mr.rkey, 1000, 0};
  TransportHeaders cs = headers_to(h1, h2, b.qp->qpn(), op::kCmpSwap, 0x101);
  cs.atomic_eth = {b.buf, b.mr.rkey, 9, 7};  // would swap 7 -> 9 if executed
  tl.send(h1, 20 * kUs, craft(fa));
  tl.send(h1, 21 * kUs, craft(cs));
  run_for(f, 40 * kUs);
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 2);
  CHECK(wcs[0].status == IBV_WC_SUCCESS);
  CHECK(wcs[1].status == IBV_WC_SUCCESS);
  CHECK(h1.memory().load64(a.buf) == 100);
  CHECK(h1.memory().load64(a.buf + 8) == 105);
  REQUIRE(resp.sent.size() == 4);
  const std::pair<Psn, std::uint64_t> expect[] = {{0x100, 100}, {0x101, 105}, {0x100, 100}, {0x101, 105}};
  for (int i = 0; i < 4; ++i) {
    INFO("response " << i);
    CHECK(resp.sent[i].opcode() == op::kAtomicAcknowledge);
    CHECK(resp.sent[i].psn() == expect[i].first);
    CHECK(resp.sent[i].parsed.h.atomic_ack_eth.orig_data == expect[i].second);
  }
  CHECK(h2.memory().load64(b.buf) == 7);
  CHECK(b.qp->stats().duplicates_received == 2);
}

TEST_CASE("R33 (ch9): a READ or atomic beyond the responder's max_dest_rd_atomic is NAKed as an invalid request",
          "[compliance][R33][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  // Two connections, max_dest_rd_atomic 1 and 2; each gets a READ of 64 KiB (16 responses) and
  // right behind it a READ of 8 bytes.
  std::vector<Endpoint> as, bs;
  for (std::uint8_t limit : {1, 2}) {
    as.push_back(make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE));
    bs.push_back(make_endpoint(h2, IBV_QPT_RC, 1 << 17, kAllRemote));
    RcParams prm;
    prm.max_rd_atomic = limit;
    connect(as.back(), bs.back(), prm);
  }
  WireLog resp;
  h2.set_send_observer(&resp);
  Timeline tl;
  for (int i = 0; i < 2; ++i) {
    TransportHeaders big = headers_to(h1, h2, bs[i].qp->qpn(), op::kRdmaReadRequest, 0x100);
    big.reth = {bs[i].buf, bs[i].mr.rkey, 65536};
    TransportHeaders small = headers_to(h1, h2, bs[i].qp->qpn(), op::kRdmaReadRequest, 0x110);
    small.reth = {bs[i].buf + 65536, bs[i].mr.rkey, 8};
    tl.send(h1, 1 * kUs, craft(big));
    tl.send(h1, 1 * kUs, craft(small));
  }
  run_for(f, 40 * kUs);
  // Limit 1: the second READ arrives while the first is being answered: NAK invalid request at its
  // PSN, and b goes to error (the response already on its way still leaves).
  auto r1 = to_qp(resp.sent, as[0].qp->qpn());
  REQUIRE(r1.size() == 2);
  CHECK(r1[0].opcode() == op::kRdmaReadRespFirst);
  CHECK(r1[1].opcode() == op::kAcknowledge);
  CHECK(r1[1].syndrome() == kNakInv);
  CHECK(r1[1].psn() == 0x110);
  CHECK(bs[0].qp->state() == IBV_QPS_ERR);
  CHECK(bs[0].qp->stats().naks_error_sent == 1);
  // Limit 2: both answered in full, 16 + 1 responses.
  auto r2 = to_qp(resp.sent, as[1].qp->qpn());
  REQUIRE(r2.size() == 17);
  for (int k = 0; k < 17; ++k) CHECK(r2[k].psn() == 0x100u + static_cast<Psn>(k));
  CHECK(r2[15].opcode() == op::kRdmaReadRespLast);
  CHECK(r2[16].opcode() == op::kRdmaReadRespOnly);
  CHECK(bs[1].qp->state() == IBV_QPS_RTS);
}

TEST_CASE("R33 (ch9): a requester never has more READs and atomics outstanding than max_rd_atomic",
          "[compliance][R33][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kAllRemote);
  RcParams prm;
  prm.max_rd_atomic = 2;
  connect(a, b, prm);
  WireLog req;
  h1.set_send_observer(&req);
  RxLog rx;
  h1.set_delivery_observer(&rx);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, read_wr(a, b, 0, 8, 1)) == 0);
    REQUIRE(h1.post_send(*a.qp, atomic_wr(a, b, IBV_WR_ATOMIC_FETCH_AND_ADD, 8, 8, 1, 0, 2)) == 0);
    REQUIRE(h1.post_send(*a.qp, read_wr(a, b, 16, 8, 3)) == 0);
  });
  run_for(f, 40 * kUs);
  REQUIRE(req.sent.size() == 3);
  REQUIRE(rx.got.size() == 3);
  CHECK(rx.got[0].psn() == 0x100);
  CHECK(req.sent[1].at < rx.got[0].at);   // the second went while the first was outstanding
  CHECK(req.sent[2].at >= rx.got[0].at);  // the third waited for the first's response
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 3);
  for (const auto& wc : wcs) CHECK(wc.status == IBV_WC_SUCCESS);
  CHECK(b.qp->stats().naks_error_sent == 0);
}

TEST_CASE("R34 (ch10): a bad R_Key, an access out of bounds, a region or QP without the access, or a region of "
          "another PD: NAK remote access error, IBV_WC_REM_ACCESS_ERR, both QPs in error, memory unchanged",
          "[compliance][R34][ch10]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  constexpr int kCases = 5;
  std::vector<Endpoint> as, bs;
  for (int i = 0; i < kCases; ++i) {
    // Case 2's region grants remote write only; case 3's QP does not allow remote atomics.
    const unsigned mr_access = i == 2 ? IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE : kAllRemote;
    as.push_back(make_endpoint(h1, IBV_QPT_RC, 16384, IBV_ACCESS_LOCAL_WRITE));
    bs.push_back(make_endpoint(h2, IBV_QPT_RC, 8192, mr_access));
    RcParams prm;
    if (i == 3) prm.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ;
    connect(as.back(), bs.back(), prm);
    std::memset(h2.memory().bytes(bs[i].buf, 8192), 0x5A, 8192);
  }
  // Case 4: an R_Key of a region over the same memory registered in another PD.
  const auto foreign = h2.reg_mr(h2.alloc_pd(), bs[4].buf, 8192, kAllRemote);
  REQUIRE(foreign.has_value());
  WireLog resp;
  h2.set_send_observer(&resp);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    auto bad_key = write_wr(as[0], bs[0], 0, 6000, 1);
    bad_key.rdma.rkey ^= 0x100;
    auto past_end = write_wr(as[1], bs[1], 4096, 4097, 1);  // one byte past the region
    auto no_read = read_wr(as[2], bs[2], 0, 64, 1);
    auto no_atomic = atomic_wr(as[3], bs[3], IBV_WR_ATOMIC_FETCH_AND_ADD, 0, 0, 1, 0, 1);
    auto other_pd = write_wr(as[4], bs[4], 0, 100, 1);
    other_pd.rdma.rkey = foreign->rkey;
    const ibv_send_wr bad[kCases] = {bad_key, past_end, no_read, no_atomic, other_pd};
    for (int i = 0; i < kCases; ++i) {
      REQUIRE(h1.post_send(*as[i].qp, bad[i]) == 0);
      REQUIRE(h1.post_send(*as[i].qp, write_wr(as[i], bs[i], 0, 8, 2)) == 0);  // flushed
    }
  });
  run_for(f, 40 * kUs);
  for (int i = 0; i < kCases; ++i) {
    INFO("case " << i);
    auto r = to_qp(resp.sent, as[i].qp->qpn());
    REQUIRE(r.size() == 1);
    CHECK(r[0].opcode() == op::kAcknowledge);
    CHECK(r[0].syndrome() == kNakAcc);
    CHECK(r[0].psn() == 0x100);
    auto wcs = as[i].poll_all();
    REQUIRE(wcs.size() == 2);
    CHECK(wcs[0].wr_id == 1);
    CHECK(wcs[0].status == IBV_WC_REM_ACCESS_ERR);
    CHECK(wcs[1].status == IBV_WC_WR_FLUSH_ERR);
    CHECK(as[i].qp->state() == IBV_QPS_ERR);
    CHECK(bs[i].qp->state() == IBV_QPS_ERR);
    CHECK(bs[i].qp->stats().remote_access_errors == 1);
    const std::uint8_t* m = h2.memory().bytes(bs[i].buf, 8192);
    CHECK(std::all_of(m, m + 8192, [](std::uint8_t x) { return x == 0x5A; }));
  }
  const std::uint8_t* local = h1.memory().bytes(as[2].buf, 64);  // the READ brought nothing
  CHECK(std::all_of(local, local + 64, [](std::uint8_t x) { return x == 0; }));
}
