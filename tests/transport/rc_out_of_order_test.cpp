// Out-of-order tolerant RC (hca_model.rc_out_of_order, rc_out_of_order.cpp) against go-back-N,
// the default: the same requests delivered out of PSN order to a real responder, and READ
// responses out of order to a real requester, as crafted packets (Hca::send_raw) on two hosts
// through one switch; every response, counter and byte checked.
#include <catch2/catch.hpp>

#include <cstring>

#include "tests/support/fabric_harness.h"
#include "tests/support/transport_wire.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

constexpr std::uint8_t kAck = 0x1F;
constexpr std::uint8_t kNakSeq = 0x60;

FabricOptions options(bool out_of_order) {
  FabricOptions o = with_data();
  o.configure_hca = [out_of_order](std::size_t, HcaConfig& c) { c.rc_out_of_order = out_of_order; };
  return o;
}

// An RC WRITE packet (First, Middle, Last or Only by `operation`) of `len` bytes of `fill` at PSN
// `psn`; First and Only carry the RETH of a message of `msg_len` bytes at `va`.
Packet write_packet(const Hca& from, const Endpoint& to, std::uint8_t operation, Psn psn, std::uint64_t va,
                    std::uint32_t msg_len, std::uint32_t len, std::uint8_t fill) {
  TransportHeaders h = headers_to(from, *to.hca, to.qp->qpn(), static_cast<std::uint8_t>(kOpcodeRcBase + operation), psn);
  h.reth = {va, to.mr.rkey, msg_len};
  h.bth.ack_req = operation == op::kRdmaWriteLast || operation == op::kRdmaWriteOnly;
  std::vector<std::uint8_t> data(len, fill);
  return craft(h, len, data.data());
}

struct Responder {
  Fabric& f;
  Hca& h1;
  Hca& h2;
  Endpoint a, b;
  WireLog wire;
  Timeline tl;
  explicit Responder(bool out_of_order)
      : f(build_fabric(kTwoHosts, options(out_of_order))), h1(*f.hca(1)), h2(*f.hca(2)) {
    a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
    b = make_endpoint(h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
    RcParams prm;
    prm.mtu = IBV_MTU_256;
    connect(a, b, prm);  // b expects PSN 0x100
    std::memset(h2.memory().bytes(b.buf, 1024), 0, 1024);
    h2.set_send_observer(&wire);
    // Message A: WRITE Only of 4 bytes of 0xAA at PSN 0x100 to b.buf. Message B: WRITE First,
    // Middle, Last of 256 bytes each (0xB1, 0xB2, 0xB3) at PSNs 0x101-0x103 to b.buf + 256. They
    // arrive B.Middle, B.First, B.Last, then A: everything but A is ahead of ePSN.
    const std::uint64_t va = b.buf + 256;
    tl.send(h1, 1 * kUs, write_packet(h1, b, op::kRdmaWriteMiddle, 0x102, va, 768, 256, 0xB2));
    tl.send(h1, 2 * kUs, write_packet(h1, b, op::kRdmaWriteFirst, 0x101, va, 768, 256, 0xB1));
    tl.send(h1, 3 * kUs, write_packet(h1, b, op::kRdmaWriteLast, 0x103, va, 768, 256, 0xB3));
    tl.send(h1, 4 * kUs, write_packet(h1, b, op::kRdmaWriteOnly, 0x100, b.buf, 4, 4, 0xAA));
  }
  // The bytes of b's buffer at `offset`.
  std::uint8_t at(std::uint64_t offset) { return *h2.memory().bytes(b.buf + offset, 1); }
};

}  // namespace

TEST_CASE("RC out of order: WRITE packets ahead of ePSN are held, placed once their First's RETH is known, and "
          "acknowledged when the gap fills, with no NAK and nothing sent again",
          "[transport][rc_out_of_order]") {
  Responder r(true);
  // Before A arrives (at 4 us), B's three packets are in memory already.
  std::array<std::uint8_t, 3> before{};
  r.tl.at(r.h2, 3500 * kNs, [&] { before = {r.at(256), r.at(512 + 255), r.at(768)}; });
  run_for(r.f, 10 * kUs);
  CHECK(before == std::array<std::uint8_t, 3>{0xB1, 0xB2, 0xB3});
  // Two ACKs, no NAK: A's (PSN 0x100, MSN 1), built the moment it was queued, then B's Last's
  // (0x103, MSN 2) once the held packets ran in order behind A.
  REQUIRE(r.wire.sent.size() == 2);
  CHECK(r.wire.sent[0].syndrome() == kAck);
  CHECK(r.wire.sent[0].psn() == 0x100);
  CHECK(r.wire.sent[0].parsed.h.aeth.msn == 1);
  CHECK(r.wire.sent[1].syndrome() == kAck);
  CHECK(r.wire.sent[1].psn() == 0x103);
  CHECK(r.wire.sent[1].parsed.h.aeth.msn == 2);
  CHECK(r.at(0) == 0xAA);
  CHECK(r.at(3) == 0xAA);
  CHECK(r.at(4) == 0);
  for (std::uint64_t i = 0; i < 256; ++i) {
    INFO("byte " << i);
    REQUIRE(r.at(256 + i) == 0xB1);
    REQUIRE(r.at(512 + i) == 0xB2);
    REQUIRE(r.at(768 + i) == 0xB3);
  }
  const QpStats& s = r.b.qp->stats();
  // B.Middle waited for its First (held), then First, Middle and Last were placed early.
  CHECK(s.ooo_held == 1);
  CHECK(s.ooo_placed == 3);
  CHECK(s.naks_seq_sent == 0);
  CHECK(s.out_of_sequence_dropped == 0);
  CHECK(s.duplicates_received == 0);
  CHECK(r.b.qp->state() == IBV_QPS_RTS);
}

TEST_CASE("RC go-back-N (the default): the same arrivals are a PSN sequence error, NAKed once, and dropped",
          "[transport][rc_out_of_order]") {
  Responder r(false);
  run_for(r.f, 10 * kUs);
  // The first one ahead (B.Middle) is NAKed with ePSN 0x100; B.First and B.Last are dropped
  // silently; A executes and is ACKed. The requester would now send B again.
  REQUIRE(r.wire.sent.size() == 2);
  CHECK(r.wire.sent[0].syndrome() == kNakSeq);
  CHECK(r.wire.sent[0].psn() == 0x100);
  CHECK(r.wire.sent[1].syndrome() == kAck);
  CHECK(r.wire.sent[1].psn() == 0x100);
  CHECK(r.wire.sent[1].parsed.h.aeth.msn == 1);
  CHECK(r.at(0) == 0xAA);
  CHECK(r.at(256) == 0);
  CHECK(r.at(512) == 0);
  const QpStats& s = r.b.qp->stats();
  CHECK(s.naks_seq_sent == 1);
  CHECK(s.out_of_sequence_dropped == 3);
  CHECK(s.ooo_placed == 0);
  CHECK(s.ooo_held == 0);
}

TEST_CASE("RC out of order: READ responses are placed by PSN as they come and the READ completes when all are in, while "
          "go-back-N takes the first one out of order for a loss",
          "[transport][rc_out_of_order]") {
  // h1 tolerates reordering, h3 does not; both READ 768 bytes (3 packets of 256) from h2, whose
  // QPs are then reset: the responses are crafted, sent from h2 as Last, First, Middle.
  Fabric& f = build_fabric(
      "nodes: [{name: sw1, type: switch}, {name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca}]\n"
      "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3}]\n",
      [] {
        FabricOptions o = with_data();
        o.configure_hca = [](std::size_t node, HcaConfig& c) { c.rc_out_of_order = node == 1; };
        return o;
      }());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Hca& h3 = *f.hca(3);
  RcParams prm;
  prm.mtu = IBV_MTU_256;
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 1024, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 1024, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
  Endpoint c = make_endpoint(h3, IBV_QPT_RC, 1024, IBV_ACCESS_LOCAL_WRITE);
  Endpoint d = make_endpoint(h2, IBV_QPT_RC, 1024, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
  connect(a, b, prm);  // a's PSNs from 0x100
  connect(c, d, prm);
  WireLog wire_a, wire_c;
  h1.set_send_observer(&wire_a);
  h3.set_send_observer(&wire_c);
  Timeline tl;
  auto read = [](Endpoint& from, const Endpoint& to) {
    ibv_send_wr wr;
    wr.wr_id = 7;
    wr.opcode = IBV_WR_RDMA_READ;
    wr.send_flags = IBV_SEND_SIGNALED;
    wr.sg_list = {from.sge(0, 768)};
    wr.rdma.remote_addr = to.buf;
    wr.rdma.rkey = to.mr.rkey;
    REQUIRE(from.hca->post_send(*from.qp, wr) == 0);
  };
  tl.at(h1, 1 * kUs, [&] {
    reset_qp(b);
    reset_qp(d);
    read(a, b);
    read(c, d);
  });
  auto response = [&](const Endpoint& to, std::uint8_t operation, Psn psn, std::uint8_t fill) {
    TransportHeaders h = headers_to(h2, *to.hca, to.qp->qpn(), static_cast<std::uint8_t>(kOpcodeRcBase + operation), psn);
    h.aeth = {kAck, 1};
    std::vector<std::uint8_t> data(256, fill);
    return craft(h, 256, data.data());
  };
  for (const Endpoint* e : {&a, &c}) {
    tl.send(h2, 3 * kUs, response(*e, op::kRdmaReadRespLast, 0x102, 0x33));
    tl.send(h2, 4 * kUs, response(*e, op::kRdmaReadRespFirst, 0x100, 0x11));
    tl.send(h2, 5 * kUs, response(*e, op::kRdmaReadRespMiddle, 0x101, 0x22));
  }
  run_for(f, 20 * kUs);

  // Out of order: every response placed, the READ complete, one response counted out of order
  // (the Last, 2 ahead; the First and Middle then came in order), no implied NAK, no new request.
  const auto wa = a.poll_all();
  REQUIRE(wa.size() == 1);
  CHECK(wa[0].status == IBV_WC_SUCCESS);
  CHECK(wa[0].byte_len == 768);
  for (std::uint64_t i = 0; i < 768; ++i) {
    INFO("byte " << i);
    REQUIRE(*h1.memory().bytes(a.buf + i, 1) == (i < 256 ? 0x11 : i < 512 ? 0x22 : 0x33));
  }
  CHECK(a.qp->stats().ooo_read_responses == 1);
  CHECK(a.qp->stats().implied_naks == 0);
  CHECK(wire_a.with_opcode(kOpcodeRcBase + op::kRdmaReadRequest).size() == 1);

  // Go-back-N: the Last, first to come, is taken for the sign of a lost First: an implied NAK and
  // the READ asked again from PSN 0x100; the First and Middle are placed, the Last is gone, and
  // nothing completes (the second request meets a reset QP: only the ACK timer will tell).
  CHECK(c.poll_all().empty());
  CHECK(c.qp->stats().implied_naks == 1);
  const auto requests = wire_c.with_opcode(kOpcodeRcBase + op::kRdmaReadRequest);
  REQUIRE(requests.size() == 2);
  CHECK(requests[1].psn() == 0x100);
  CHECK(c.qp->stats().packets_retransmitted == 1);
  CHECK(*h3.memory().bytes(c.buf, 1) == 0x11);
  CHECK(*h3.memory().bytes(c.buf + 256, 1) == 0x22);
  CHECK(*h3.memory().bytes(c.buf + 512, 1) != 0x33);
}

TEST_CASE("RC out of order: a WRITE through a memory window ahead of ePSN is held, not placed early (a SEND with "
          "Invalidate ahead of it could yet take the window away), and runs in order once the gap fills",
          "[transport][rc_out_of_order][mw]") {
  Fabric& f = build_fabric(kTwoHosts, options(true));
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096,
                             IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_MW_BIND);
  RcParams prm;
  prm.mtu = IBV_MTU_256;
  connect(a, b, prm);  // b expects PSN 0x100
  std::memset(h2.memory().bytes(b.buf, 1024), 0, 1024);
  WireLog wire;
  h2.set_send_observer(&wire);
  ibv_mw mw = *h2.alloc_mw(b.pd, IBV_MW_TYPE_1);
  ibv_mw_bind bind;
  bind.wr_id = 1;
  bind.bind_info = {b.mr, b.buf + 256, 256, IBV_ACCESS_REMOTE_WRITE};
  Timeline tl;
  tl.at(h2, 100 * kNs, [&] { REQUIRE(h2.bind_mw(*b.qp, mw, bind) == 0); });
  // B: WRITE Only of 256 bytes of 0xB1 through the window at PSN 0x101, at 2 us; A: WRITE Only of 4
  // bytes of 0xAA through the region at PSN 0x100, at 4 us.
  tl.at(h1, 2 * kUs, [&] {
    TransportHeaders h = headers_to(h1, h2, b.qp->qpn(), static_cast<std::uint8_t>(kOpcodeRcBase + op::kRdmaWriteOnly), 0x101);
    h.reth = {b.buf + 256, mw.rkey, 256};
    h.bth.ack_req = true;
    std::vector<std::uint8_t> data(256, 0xB1);
    h1.send_raw(craft(h, 256, data.data()));
  });
  tl.send(h1, 4 * kUs, write_packet(h1, b, op::kRdmaWriteOnly, 0x100, b.buf, 4, 4, 0xAA));
  std::uint8_t before = 0xFF;
  tl.at(h2, 3500 * kNs, [&] { before = *h2.memory().bytes(b.buf + 256, 1); });
  run_for(f, 10 * kUs);
  CHECK(before == 0);  // held, not placed
  const QpStats& s = b.qp->stats();
  CHECK(s.ooo_held == 1);
  CHECK(s.ooo_placed == 0);
  CHECK(s.naks_seq_sent == 0);
  REQUIRE(wire.sent.size() == 2);
  CHECK(wire.sent[0].syndrome() == kAck);
  CHECK(wire.sent[0].psn() == 0x100);
  CHECK(wire.sent[1].syndrome() == kAck);
  CHECK(wire.sent[1].psn() == 0x101);
  CHECK(*h2.memory().bytes(b.buf, 1) == 0xAA);
  for (std::uint64_t i = 0; i < 256; ++i) {
    INFO("byte " << i);
    REQUIRE(*h2.memory().bytes(b.buf + 256 + i, 1) == 0xB1);
  }
  CHECK(b.qp->state() == IBV_QPS_RTS);
}
