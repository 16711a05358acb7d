// Unreliable Connected and Unreliable Datagram services: R35 (UC never answers and resynchronises
// on a First/Only after a PSN gap) and R36 (UD: one packet per message, Q_Key rules), ch9.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "sim/transport/q_key.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/transport_wire.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
ibv_send_wr ud_wr(const Endpoint& from, const Endpoint& to, std::uint32_t len, std::uint32_t qkey, std::uint64_t id) {
  ibv_send_wr wr;
  wr.wr_id = id;
  wr.opcode = IBV_WR_SEND;
  wr.send_flags = IBV_SEND_SIGNALED;
  if (len > 0) wr.sg_list = {from.sge(0, len)};
  wr.ud.ah = ah_to(from, to);
  wr.ud.remote_qpn = to.qp->qpn();
  wr.ud.remote_qkey = qkey;
  return wr;
}
}  // namespace

TEST_CASE("R35 (ch9): UC sends no ACKs, and after a PSN gap drops packets until the next First or Only, whose PSN "
          "it adopts",
          "[compliance][R35][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  RcParams prm;
  prm.mtu = IBV_MTU_256;
  prm.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  // Pair 1: the test plays the sender with crafted packets. Pair 2: two real UC QPs.
  Endpoint a1 = make_endpoint(h1, IBV_QPT_UC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b1 = make_endpoint(h2, IBV_QPT_UC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint a2 = make_endpoint(h1, IBV_QPT_UC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b2 = make_endpoint(h2, IBV_QPT_UC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a1, b1, prm);
  connect(a2, b2, prm);
  std::memset(h2.memory().bytes(b1.buf, 4096), 0xEE, 4096);
  for (int i = 0; i < 2; ++i) {
    ibv_recv_wr r;
    r.wr_id = static_cast<std::uint64_t>(i + 1);
    r.sg_list = {b1.sge(1024 * static_cast<std::uint64_t>(i), 1024)};
    REQUIRE(h2.post_recv(*b1.qp, r) == 0);
  }
  WireLog answers;
  h2.set_send_observer(&answers);
  std::vector<std::uint8_t> x11(256, 0x11), x22(100, 0x22), x33(256, 0x33);
  const Qpn q = b1.qp->qpn();
  auto uc = [&](std::uint8_t o, Psn psn) { return headers_to(h1, h2, q, static_cast<std::uint8_t>(kOpcodeUcBase + o), psn); };
  Timeline tl;
  tl.send(h1, 1 * kUs, craft(uc(op::kSendFirst, 0x100), 256, x11.data()));
  tl.send(h1, 2 * kUs, craft(uc(op::kSendMiddle, 0x101), 256, x11.data()));
  // 0x102 never comes: the message in progress is lost.
  tl.send(h1, 3 * kUs, craft(uc(op::kSendMiddle, 0x103), 256, x11.data()));
  tl.send(h1, 4 * kUs, craft(uc(op::kSendLast, 0x104), 10, x11.data()));
  tl.send(h1, 5 * kUs, craft(uc(op::kSendOnly, 0x105), 100, x22.data()));   // resynchronises
  tl.send(h1, 6 * kUs, craft(uc(op::kSendFirst, 0x108), 256, x33.data()));  // a gap, but a First
  tl.send(h1, 7 * kUs, craft(uc(op::kSendLast, 0x109), 10, x33.data()));
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a2.qp, write_wr(a2, b2, 0, 600, 1)) == 0);
  });
  run_for(f, 20 * kUs);
  auto rw = b1.poll_all();
  REQUIRE(rw.size() == 2);
  CHECK(rw[0].wr_id == 1);  // the lost message consumed no receive
  CHECK(rw[0].byte_len == 100);
  CHECK(rw[1].wr_id == 2);
  CHECK(rw[1].byte_len == 266);
  const std::uint8_t* m = h2.memory().bytes(b1.buf, 2048);
  CHECK(std::all_of(m, m + 100, [](std::uint8_t v) { return v == 0x22; }));
  CHECK(std::all_of(m + 1024, m + 1024 + 266, [](std::uint8_t v) { return v == 0x33; }));
  CHECK(m[1024 + 266] == 0xEE);
  const QpStats& s = b1.qp->stats();
  CHECK(s.uc_messages_dropped == 1);
  CHECK(s.out_of_sequence_dropped == 2);  // 0x103 and 0x104
  // The real pair: the WRITE completes at the sender and lands, and nobody ever answers.
  auto sw = a2.poll_all();
  REQUIRE(sw.size() == 1);
  CHECK(sw[0].status == IBV_WC_SUCCESS);
  CHECK(std::memcmp(h1.memory().bytes(a2.buf, 600), h2.memory().bytes(b2.buf, 600), 600) == 0);
  CHECK(answers.sent.empty());
  CHECK(b1.qp->stats().acks_sent == 0);
  CHECK(b2.qp->stats().acks_sent == 0);
}

TEST_CASE("R36 (ch9): a UD message is one SEND Only packet with a DETH, of at most the PMTU", "[compliance][R36][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = ud_qp(h1, 0x42, 2);  // 8 KiB of buffer to send from
  Endpoint b = ud_qp(h2, 0x42, 2, 0, 8192);  // room for the 40 bytes of GRH space and 4096 of payload
  std::uint8_t* src = h1.memory().bytes(a.buf, 4096);
  for (int i = 0; i < 4096; ++i) src[i] = static_cast<std::uint8_t>(i * 3);
  WireLog wire;
  h1.set_send_observer(&wire);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    CHECK(h1.post_send(*a.qp, ud_wr(a, b, 4097, 0x42, 9)) == EINVAL);  // more than the PMTU of 4096
    ibv_send_wr two = ud_wr(a, b, 4096, 0x42, 1);
    REQUIRE(h1.post_send(*a.qp, two) == 0);
    REQUIRE(h1.post_send(*a.qp, ud_wr(a, b, 0, 0x42, 2)) == 0);
  });
  run_for(f, 20 * kUs);
  REQUIRE(wire.sent.size() == 2);  // one packet per message
  CHECK(wire.sent[0].opcode() == kOpcodeUdSendOnly);
  CHECK(wire.sent[0].has(kExtDeth));
  CHECK(wire.sent[0].parsed.h.deth.src_qp == a.qp->qpn());
  CHECK(wire.sent[0].parsed.payload_len == 4096);
  CHECK(wire.sent[1].opcode() == kOpcodeUdSendOnly);
  CHECK(wire.sent[1].parsed.payload_len == 0);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 2);
  CHECK(rw[0].byte_len == 40 + 4096);
  CHECK(rw[1].byte_len == 40);
  CHECK(std::memcmp(h2.memory().bytes(b.buf + 40, 4096), src, 4096) == 0);
}

TEST_CASE("R36 (ch9): a UD packet with another Q_Key is dropped silently and counted, and a controlled Q_Key is "
          "replaced by the sender's own",
          "[compliance][R36][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = ud_qp(h1, 0x2222);
  Endpoint b = ud_qp(h2, 0x2222, 3);
  WireLog wire, answers;
  h1.set_send_observer(&wire);
  h2.set_send_observer(&answers);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, ud_wr(a, b, 100, 0x9999, 1)) == 0);      // wrong Q_Key
    REQUIRE(h1.post_send(*a.qp, ud_wr(a, b, 100, 0x8000ABCD, 2)) == 0);  // controlled: a's own goes
    REQUIRE(h1.post_send(*a.qp, ud_wr(a, b, 100, 0x2222, 3)) == 0);
  });
  run_for(f, 20 * kUs);
  REQUIRE(wire.sent.size() == 3);
  CHECK(wire.sent[0].parsed.h.deth.q_key == 0x9999);
  CHECK(wire.sent[1].parsed.h.deth.q_key == 0x2222);
  CHECK(wire.sent[2].parsed.h.deth.q_key == 0x2222);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 2);
  CHECK(rw[0].wr_id == 1);  // receives are consumed by the packets taken only
  CHECK(rw[1].wr_id == 2);
  CHECK(b.qp->stats().qkey_violations == 1);
  CHECK(h2.port_discards(1, DropReason::kQkeyMismatch) == 1);  // Q_KeyViolations
  CHECK(f.ledger().dropped_count(DropReason::kQkeyMismatch) == 1);
  CHECK(f.ledger().dropped_total() == 1);
  CHECK(answers.sent.empty());  // silently: UD never answers
  CHECK(a.poll_all().size() == 3);
}

TEST_CASE("R36 (ch9): QP1 takes only the well-known Q_Key 0x80010000, QP0 any, every other QP its own",
          "[compliance][R36][ch9]") {
  CHECK(kGsiQKey == 0x80010000u);
  CHECK(ud_q_key_accepted(0, 0, 0x12345678));
  CHECK(ud_q_key_accepted(0, 0, 0x80010000));
  CHECK(ud_q_key_accepted(1, 0x80010000, 0x80010000));
  CHECK(ud_q_key_accepted(1, 0x1234, 0x80010000));  // whatever QP1 was given
  CHECK_FALSE(ud_q_key_accepted(1, 0x1234, 0x1234));
  CHECK_FALSE(ud_q_key_accepted(1, 0x80010000, 0x80010001));
  CHECK(ud_q_key_accepted(0x100, 0x1234, 0x1234));
  CHECK_FALSE(ud_q_key_accepted(0x100, 0x1234, 0x1235));
  CHECK_FALSE(ud_q_key_accepted(0x100, 0x1234, 0x80010000));
  CHECK(q_key_controlled(0x80010000));
  CHECK_FALSE(q_key_controlled(0x7FFFFFFF));
}
