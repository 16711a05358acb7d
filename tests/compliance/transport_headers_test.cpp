// Transport header rules at the destination CA: R14 (multicast only for UD to QP 0xFFFFFF), R22
// (TVer), R23 (PadCnt), R24 (First/Middle PMTU-sized), R25 (GRH fields). Malformed packets are
// crafted byte by byte and sent from the other HCA (Hca::send_raw); the destination must discard
// them and count each under its reason, and take the good ones.
#include <catch2/catch.hpp>

#include <algorithm>
#include <cstring>

#include "sim/core/big_endian.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/transport_wire.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
constexpr std::size_t kBth = kLrhBytes;  // BTH offset in a local (LNH 2) packet

// A UD SEND Only from `from` to QP `dest_qp` behind `to` (or to `dlid` if set).
Packet ud_send_only(const Hca& from, const Hca& to, Qpn dest_qp, std::uint32_t qkey, std::uint32_t len,
                    const std::uint8_t* data = nullptr, Lid dlid = 0) {
  TransportHeaders h = headers_to(from, to, dest_qp, kOpcodeUdSendOnly, 0);
  if (dlid) h.lrh.dlid = dlid;
  h.deth = {qkey, 0x000123};
  return craft(h, len, data);
}

}  // namespace

TEST_CASE("R14 (ch9): a multicast DLID is accepted only on a UD packet to DestQP 0xFFFFFF", "[compliance][R14][ch9]") {
  FabricOptions o = with_data();
  o.multicast = {MulticastGroup{"g", {2}, {1}}};  // h2 (node 2) receives MLID 0xC000, h1 sends
  Fabric& f = build_fabric(kTwoHosts, o);
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  constexpr Lid kMlid = 0xC000;
  Endpoint b = ud_qp(h2, 0x77, 4);
  h2.join_multicast(kMlid, b.qp->qpn());
  const std::uint8_t msg[4] = {'m', 'c', 'a', 's'};
  Timeline tl;
  // Good: UD to the group's QP 0xFFFFFF.
  tl.send(h1, 1 * kUs, ud_send_only(h1, h2, 0xFFFFFF, 0x77, 4, msg, kMlid));
  // UD to the group but to an ordinary QP number.
  tl.send(h1, 2 * kUs, ud_send_only(h1, h2, b.qp->qpn(), 0x77, 4, msg, kMlid));
  // RC and UC SEND Only to the group (QP 0xFFFFFF).
  for (std::uint8_t base : {kOpcodeRcBase, kOpcodeUcBase}) {
    TransportHeaders h = headers_to(h1, h2, 0xFFFFFF, static_cast<std::uint8_t>(base + op::kSendOnly), 0);
    h.lrh.dlid = kMlid;
    tl.send(h1, (base == kOpcodeRcBase ? 3 : 4) * kUs, craft(h, 4, msg));
  }
  // A connected QP cannot even be given a multicast destination.
  Endpoint c = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  ibv_qp_attr at;
  at.qp_state = IBV_QPS_INIT;
  REQUIRE(h1.modify_qp(*c.qp, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) == 0);
  at.qp_state = IBV_QPS_RTR;
  at.dest_qp_num = 0xFFFFFF;
  at.ah_attr.dlid = kMlid;
  const unsigned rtr = IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                      IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER;
  CHECK(h1.modify_qp(*c.qp, at, rtr) == EINVAL);
  CHECK(c.qp->state() == IBV_QPS_INIT);
  at.ah_attr.dlid = h2.lid();  // the same with a unicast DLID is fine
  CHECK(h1.modify_qp(*c.qp, at, rtr) == 0);

  run_for(f, 20 * kUs);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK(rw[0].status == IBV_WC_SUCCESS);
  CHECK(rw[0].byte_len == 40 + 4);
  CHECK(std::memcmp(h2.memory().bytes(b.buf + 40, 4), msg, 4) == 0);
  CHECK(h2.port_discards(1, DropReason::kMalformed) == 3);
  CHECK(f.ledger().dropped_count(DropReason::kMalformed) == 3);
  CHECK(f.ledger().dropped_total() == 3);
}

TEST_CASE("R22 (ch9): a packet with BTH.TVer other than 0 is discarded before the transport sees it",
          "[compliance][R22][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);  // b expects PSN 0x100
  Endpoint u = ud_qp(h2, 0x55, 2);
  WireLog wire;
  h2.set_send_observer(&wire);
  const std::uint8_t bad[4] = {'b', 'a', 'd', '!'}, good[4] = {'g', 'o', 'o', 'd'};
  Timeline tl;
  // Every non-zero TVer, each on a WRITE at b's expected PSN: executed, it would have written
  // "bad!" and made the good WRITE below a duplicate.
  for (std::uint8_t tver = 1; tver <= 15; ++tver) {
    Packet p = write_only(h1, b, kOpcodeRcBase, 0x100, b.buf, 4, bad);
    p.header[kBth + 1] = static_cast<std::uint8_t>((p.header[kBth + 1] & 0xF0) | tver);
    reseal(p);
    tl.send(h1, 1 * kUs + tver * 100 * kNs, p);
  }
  tl.send(h1, 3 * kUs, write_only(h1, b, kOpcodeRcBase, 0x100, b.buf, 4, good));
  Packet ud = ud_send_only(h1, h2, u.qp->qpn(), 0x55, 4, bad);
  ud.header[kBth + 1] |= 0x01;
  reseal(ud);
  tl.send(h1, 4 * kUs, ud);
  run_for(f, 20 * kUs);
  CHECK(h2.port_discards(1, DropReason::kMalformed) == 16);
  CHECK(f.ledger().dropped_total() == 16);
  CHECK(std::memcmp(h2.memory().bytes(b.buf, 4), good, 4) == 0);
  CHECK(b.qp->stats().duplicates_received == 0);
  CHECK(u.poll_all().empty());
  // b answered the good WRITE only: one ACK for PSN 0x100.
  REQUIRE(wire.sent.size() == 1);
  CHECK(wire.sent[0].opcode() == op::kAcknowledge);
  CHECK(wire.sent[0].psn() == 0x100);
  CHECK(wire.sent[0].syndrome() == 0x1F);  // ACK, credit code 31
}

TEST_CASE("R23 (ch9): senders pad every payload to a multiple of 4 with PadCnt, and the pad is never delivered",
          "[compliance][R23][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  constexpr std::uint32_t kBuf = 1 << 16;  // 8 slots of 8 KiB
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, kBuf, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, kBuf, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  WireLog wire;
  h1.set_send_observer(&wire);
  std::uint8_t* src = h1.memory().bytes(a.buf, kBuf);
  for (std::uint32_t i = 0; i < kBuf; ++i) src[i] = static_cast<std::uint8_t>(i * 13 + 1);
  std::memset(h2.memory().bytes(b.buf, kBuf), 0xEE, kBuf);
  // SENDs of 1, 2, 3, 4 and 4097 bytes from and into slots 0-4; WRITEs of 5 and 6 bytes to
  // slots 5 and 6.
  const std::uint32_t sends[] = {1, 2, 3, 4, 4097};
  for (int i = 0; i < 5; ++i) {
    ibv_recv_wr r;
    r.wr_id = static_cast<std::uint64_t>(i);
    r.sg_list = {b.sge(8192 * static_cast<std::uint64_t>(i), 8192)};
    REQUIRE(h2.post_recv(*b.qp, r) == 0);
  }
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    for (int i = 0; i < 5; ++i) {
      ibv_send_wr wr;
      wr.wr_id = static_cast<std::uint64_t>(i);
      wr.opcode = IBV_WR_SEND;
      wr.sg_list = {a.sge(8192 * static_cast<std::uint64_t>(i), sends[i])};
      REQUIRE(h1.post_send(*a.qp, wr) == 0);
    }
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 5 * 8192, 5, 10)) == 0);
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 6 * 8192, 6, 11)) == 0);
  });
  run_for(f, 50 * kUs);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 5);
  for (int i = 0; i < 5; ++i) {
    INFO("SEND " << i);
    CHECK(rw[i].byte_len == sends[i]);
    const std::uint8_t* d = h2.memory().bytes(b.buf + 8192 * static_cast<std::uint64_t>(i), 8192);
    CHECK(std::memcmp(d, src + 8192 * i, sends[i]) == 0);
    // The pad after the last payload byte (up to 3 bytes, to the next multiple of 4) is not written.
    for (std::uint32_t k = sends[i]; k < sends[i] + 4; ++k) CHECK(d[k] == 0xEE);
  }
  for (std::uint32_t w : {5u, 6u}) {
    const std::uint8_t* d = h2.memory().bytes(b.buf + 8192 * w, 16);
    CHECK(std::memcmp(d, src + 8192 * w, w) == 0);
    for (std::uint32_t k = w; k < 8; ++k) CHECK(d[k] == 0xEE);
  }
  // On the wire: PadCnt = (4 - payload) mod 4 and 4 x PktLen = headers + payload + pad + ICRC.
  // Payloads in order: 1, 2, 3, 4, 4096 + 1, 5, 6.
  const std::uint32_t payloads[] = {1, 2, 3, 4, 4096, 1, 5, 6};
  REQUIRE(wire.sent.size() == 8);
  for (int i = 0; i < 8; ++i) {
    INFO("packet " << i);
    const ParsedPacket& pp = wire.sent[i].parsed;
    const std::uint32_t pad = (4 - payloads[i] % 4) % 4;
    CHECK(pp.payload_len == payloads[i]);
    CHECK(pp.h.bth.pad_cnt == pad);
    const std::uint32_t headers = 8 + 12 + (pp.h.bth.opcode == op::kRdmaWriteOnly ? 16 : 0);  // LRH, BTH, RETH
    CHECK(4u * pp.h.lrh.pkt_len == headers + payloads[i] + pad + 4);
  }
}

TEST_CASE("R23 (ch9): the receiver takes the payload length from PktLen and PadCnt, and discards a PadCnt the "
          "packet has no room for",
          "[compliance][R23][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096,
                             IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_READ);
  connect(a, b);
  std::memset(h2.memory().bytes(b.buf, 4096), 0xEE, 4096);
  for (int i = 0; i < 2; ++i) {
    ibv_recv_wr r;
    r.wr_id = static_cast<std::uint64_t>(i + 1);
    r.sg_list = {b.sge(1024 * static_cast<std::uint64_t>(i), 1024)};
    REQUIRE(h2.post_recv(*b.qp, r) == 0);
  }
  WireLog wire;
  h2.set_send_observer(&wire);
  const std::uint8_t data[2] = {0xA1, 0xA2};
  Timeline tl;
  // A READ request (no payload) claiming 2 bytes of pad: no room. Discarded, no response.
  {
    TransportHeaders h = headers_to(h1, h2, b.qp->qpn(), op::kRdmaReadRequest, 0x100);
    h.reth = {b.buf, b.mr.rkey, 8};
    Packet p = craft(h);
    p.header[kBth + 1] |= 2 << 4;
    reseal(p);
    tl.send(h1, 1 * kUs, p);
  }
  // A SEND Only with no payload claiming 3 bytes of pad: discarded.
  {
    Packet p = craft(headers_to(h1, h2, b.qp->qpn(), op::kSendOnly, 0x100));
    p.header[kBth + 1] |= 3 << 4;
    reseal(p);
    tl.send(h1, 2 * kUs, p);
  }
  // A SEND Only built with 2 payload bytes and 2 of pad, PadCnt rewritten to 3: the bytes say 1
  // byte of payload, and that is what the receive gets.
  {
    TransportHeaders h = headers_to(h1, h2, b.qp->qpn(), op::kSendOnly, 0x100);
    h.bth.ack_req = true;
    Packet p = craft(h, 2, data);
    REQUIRE(p.pad_len == 2);
    p.header[kBth + 1] = static_cast<std::uint8_t>((p.header[kBth + 1] & 0xCF) | (3 << 4));
    reseal(p);
    tl.send(h1, 3 * kUs, p);
  }
  // And PadCnt rewritten to 0: 4 bytes of payload, the last two the zeros of the pad.
  {
    TransportHeaders h = headers_to(h1, h2, b.qp->qpn(), op::kSendOnly, 0x101);
    h.bth.ack_req = true;
    Packet p = craft(h, 2, data);
    p.header[kBth + 1] &= 0xCF;
    reseal(p);
    tl.send(h1, 4 * kUs, p);
  }
  run_for(f, 20 * kUs);
  CHECK(h2.port_discards(1, DropReason::kMalformed) == 2);
  CHECK(f.ledger().dropped_total() == 2);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 2);
  CHECK(rw[0].wr_id == 1);
  CHECK(rw[0].byte_len == 1);
  CHECK(rw[1].wr_id == 2);
  CHECK(rw[1].byte_len == 4);
  const std::uint8_t* m = h2.memory().bytes(b.buf, 2048);
  CHECK(m[0] == 0xA1);
  CHECK(m[1] == 0xEE);  // pad, not delivered
  CHECK(m[1024] == 0xA1);
  CHECK(m[1025] == 0xA2);
  CHECK(m[1026] == 0x00);
  CHECK(m[1027] == 0x00);
  CHECK(m[1028] == 0xEE);
  REQUIRE(wire.sent.size() == 2);  // the two ACKs, nothing for the discarded packets
  CHECK(wire.sent[0].psn() == 0x100);
  CHECK(wire.sent[1].psn() == 0x101);
}

TEST_CASE("R24 (ch9): senders fill First and Middle packets to exactly the PMTU and put the rest in Last",
          "[compliance][R24][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 1 << 14, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 1 << 14, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  RcParams prm;
  prm.mtu = IBV_MTU_256;
  connect(a, b, prm);
  for (int i = 0; i < 2; ++i) {
    ibv_recv_wr r;
    r.sg_list = {b.sge(8192, 4096)};
    REQUIRE(h2.post_recv(*b.qp, r) == 0);
  }
  WireLog wire;
  h1.set_send_observer(&wire);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] {
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 0, 1000, 1)) == 0);  // 256 + 256 + 256 + 232
    REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 0, 256, 2)) == 0);   // Only, 256
    ibv_send_wr s;
    s.opcode = IBV_WR_SEND;
    s.sg_list = {a.sge(0, 512)};  // 256 + 256
    REQUIRE(h1.post_send(*a.qp, s) == 0);
    s.sg_list = {};  // 0 bytes: one Only packet without payload
    REQUIRE(h1.post_send(*a.qp, s) == 0);
  });
  run_for(f, 50 * kUs);
  const std::uint8_t ops[] = {op::kRdmaWriteFirst, op::kRdmaWriteMiddle, op::kRdmaWriteMiddle, op::kRdmaWriteLast,
                              op::kRdmaWriteOnly,  op::kSendFirst,       op::kSendLast,       op::kSendOnly};
  const std::uint32_t lens[] = {256, 256, 256, 232, 256, 256, 256, 0};
  REQUIRE(wire.sent.size() == 8);
  for (int i = 0; i < 8; ++i) {
    INFO("packet " << i);
    CHECK(wire.sent[i].opcode() == ops[i]);
    CHECK(wire.sent[i].parsed.payload_len == lens[i]);
    CHECK(wire.sent[i].psn() == 0x100u + static_cast<Psn>(i));
  }
  CHECK(a.poll_all().size() == 2);  // the signaled WRITEs
  CHECK(b.poll_all().size() == 2);
}

TEST_CASE("R24 (ch9): an RC First or Middle that is not PMTU-sized, or a Last or Only above the PMTU, is NAKed as "
          "an invalid request and the responder QP goes to error",
          "[compliance][R24][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  RcParams prm;
  prm.mtu = IBV_MTU_256;
  // Four connections, one bad packet each: First of 255, Middle of 257, Last of 257, Only of 257.
  struct Case {
    std::uint8_t first_op, bad_op;
    std::uint32_t bad_len;
  };
  const Case cases[] = {{0xFF, op::kSendFirst, 255},
                        {op::kSendFirst, op::kSendMiddle, 257},
                        {op::kSendFirst, op::kSendLast, 257},
                        {0xFF, op::kSendOnly, 257}};
  std::vector<Endpoint> as, bs;
  for (int i = 0; i < 4; ++i) {
    as.push_back(make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE));
    bs.push_back(make_endpoint(h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE));
    connect(as.back(), bs.back(), prm);
    ibv_recv_wr r;
    r.sg_list = {bs.back().sge(0, 4096)};
    REQUIRE(h2.post_recv(*bs.back().qp, r) == 0);
  }
  WireLog wire;
  h2.set_send_observer(&wire);
  Timeline tl;
  for (int i = 0; i < 4; ++i) {
    Psn psn = 0x100;
    if (cases[i].first_op != 0xFF) {
      tl.send(h1, 1 * kUs, craft(headers_to(h1, h2, bs[i].qp->qpn(), cases[i].first_op, psn++), 256));
    }
    tl.send(h1, 2 * kUs, craft(headers_to(h1, h2, bs[i].qp->qpn(), cases[i].bad_op, psn), cases[i].bad_len));
  }
  run_for(f, 20 * kUs);
  REQUIRE(wire.sent.size() == 4);
  for (int i = 0; i < 4; ++i) {
    INFO("case " << i);
    auto it = std::find_if(wire.sent.begin(), wire.sent.end(),
                           [&](const WirePacket& w) { return w.parsed.h.bth.dest_qp == as[i].qp->qpn(); });
    REQUIRE(it != wire.sent.end());
    const WirePacket& n = *it;
    CHECK(n.opcode() == op::kAcknowledge);
    CHECK(n.syndrome() == 0x61);  // NAK, invalid request
    CHECK(n.psn() == (cases[i].first_op == 0xFF ? 0x100u : 0x101u));
    CHECK(bs[i].qp->state() == IBV_QPS_ERR);
    CHECK(bs[i].qp->stats().naks_error_sent == 1);
    // The receive is flushed: nothing was delivered.
    auto rw = bs[i].poll_all();
    REQUIRE(rw.size() == 1);
    CHECK(rw[0].status == IBV_WC_WR_FLUSH_ERR);
  }
}

TEST_CASE("R24 (ch9): a UC First that is not PMTU-sized drops its message silently, the next message is delivered",
          "[compliance][R24][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_UC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_UC, 4096, IBV_ACCESS_LOCAL_WRITE);
  RcParams prm;
  prm.mtu = IBV_MTU_256;
  prm.access = IBV_ACCESS_LOCAL_WRITE;
  connect(a, b, prm);
  for (int i = 0; i < 2; ++i) {
    ibv_recv_wr r;
    r.wr_id = static_cast<std::uint64_t>(i + 1);
    r.sg_list = {b.sge(2048 * static_cast<std::uint64_t>(i), 2048)};
    REQUIRE(h2.post_recv(*b.qp, r) == 0);
  }
  WireLog wire;
  h2.set_send_observer(&wire);
  Timeline tl;
  const Qpn q = b.qp->qpn();
  tl.send(h1, 1 * kUs, craft(headers_to(h1, h2, q, kOpcodeUcBase + op::kSendFirst, 0x100), 200));
  tl.send(h1, 2 * kUs, craft(headers_to(h1, h2, q, kOpcodeUcBase + op::kSendMiddle, 0x101), 256));
  tl.send(h1, 3 * kUs, craft(headers_to(h1, h2, q, kOpcodeUcBase + op::kSendLast, 0x102), 10));
  tl.send(h1, 4 * kUs, craft(headers_to(h1, h2, q, kOpcodeUcBase + op::kSendFirst, 0x103), 256));
  tl.send(h1, 5 * kUs, craft(headers_to(h1, h2, q, kOpcodeUcBase + op::kSendLast, 0x104), 20));
  run_for(f, 20 * kUs);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK(rw[0].wr_id == 1);  // the dropped message consumed no receive
  CHECK(rw[0].byte_len == 276);
  CHECK(b.qp->state() == IBV_QPS_RTS);
  CHECK(b.qp->stats().uc_messages_dropped == 1);
  CHECK(wire.sent.empty());  // UC never answers
}

TEST_CASE("R25 (ch8): senders write GRHs with IPVer 6, NxtHdr 0x1B and PayLen = 4 x PktLen - 48",
          "[compliance][R25][ch8]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = ud_qp(h1, 0x99);
  Endpoint b = ud_qp(h2, 0x99, 3);
  WireLog wire;
  h1.set_send_observer(&wire);
  Timeline tl;
  ibv_ah_attr av;
  av.dlid = h2.lid();
  av.is_global = true;
  av.grh.hop_lmt = 64;
  const AhHandle ah = h1.create_ah(a.pd, av);
  REQUIRE(ah != 0);
  tl.at(h1, 1 * kUs, [&] {
    for (std::uint32_t len : {0u, 1u, 1000u}) {
      ibv_send_wr wr;
      if (len > 0) wr.sg_list = {a.sge(0, len)};
      wr.ud.ah = ah;
      wr.ud.remote_qpn = b.qp->qpn();
      wr.ud.remote_qkey = 0x99;
      REQUIRE(h1.post_send(*a.qp, wr) == 0);
    }
  });
  run_for(f, 20 * kUs);
  REQUIRE(wire.sent.size() == 3);
  const std::uint32_t lens[] = {0, 1, 1000};
  for (int i = 0; i < 3; ++i) {
    const WirePacket& w = wire.sent[i];
    REQUIRE(w.parsed.ok());
    REQUIRE(w.parsed.h.grh.has_value());
    CHECK(w.parsed.h.lrh.lnh == 3);
    CHECK(w.parsed.h.grh->ipver == 6);
    CHECK(w.parsed.h.grh->nxt_hdr == 0x1B);
    // LRH 8 + GRH 40 + BTH 12 + DETH 8 + payload + pad + ICRC 4 = 4 x PktLen.
    const std::uint32_t pkt_bytes = 8 + 40 + 12 + 8 + lens[i] + (4 - lens[i] % 4) % 4 + 4;
    CHECK(4u * w.parsed.h.lrh.pkt_len == pkt_bytes);
    CHECK(w.parsed.h.grh->pay_len == pkt_bytes - 48);
  }
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 3);
  for (const auto& wc : rw) CHECK((wc.wc_flags & IBV_WC_GRH));
}

TEST_CASE("R25 (ch8): a GRH with IPVer other than 6, NxtHdr other than 0x1B or a wrong PayLen is discarded",
          "[compliance][R25][ch8]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint b = ud_qp(h2, 0x99, 5);
  const std::uint8_t msg[6] = {'g', 'l', 'o', 'b', 'a', 'l'};
  TransportHeaders h = headers_to(h1, h2, b.qp->qpn(), kOpcodeUdSendOnly, 0);
  h.deth = {0x99, 0x123};
  Grh g;
  g.hop_lmt = 1;
  g.sgid[0] = 0xFE, g.sgid[1] = 0x80, g.sgid[15] = 1;
  g.dgid[0] = 0xFE, g.dgid[1] = 0x80, g.dgid[15] = 2;
  h.grh = g;
  const Packet good = craft(h, 6, msg);
  // PayLen = 4 x PktLen - 48: PktLen = (8 + 40 + 12 + 8 + 6 + 2 + 4) / 4 = 20, PayLen 32.
  REQUIRE(load_be16(good.header.data() + 8 + 4) == 32);
  Timeline tl;
  auto bad = [&](int i, auto change) {
    Packet p = good;
    change(p.header.data() + kLrhBytes);
    reseal(p);
    tl.send(h1, (1 + i) * kUs, p);
  };
  bad(0, [](std::uint8_t* grh) { grh[0] = static_cast<std::uint8_t>((grh[0] & 0x0F) | 0x40); });  // IPVer 4
  bad(1, [](std::uint8_t* grh) { grh[0] = static_cast<std::uint8_t>(grh[0] & 0x0F); });          // IPVer 0
  bad(2, [](std::uint8_t* grh) { grh[6] = 0x11; });                                               // NxtHdr UDP
  bad(3, [](std::uint8_t* grh) { store_be16(grh + 4, 36); });                                     // PayLen + 4
  bad(4, [](std::uint8_t* grh) { store_be16(grh + 4, 28); });                                     // PayLen - 4
  tl.send(h1, 10 * kUs, good);
  run_for(f, 20 * kUs);
  CHECK(h2.port_discards(1, DropReason::kMalformed) == 5);
  CHECK(f.ledger().dropped_total() == 5);
  auto rw = b.poll_all();
  REQUIRE(rw.size() == 1);
  CHECK((rw[0].wc_flags & IBV_WC_GRH));
  CHECK(rw[0].byte_len == 40 + 6);
  // The GRH lands in the first 40 bytes of the buffer, the payload after it.
  CHECK(std::memcmp(h2.memory().bytes(b.buf, 40), good.header.data() + kLrhBytes, 40) == 0);
  CHECK(std::memcmp(h2.memory().bytes(b.buf + 40, 6), msg, 6) == 0);
}
