// Partitions, R37 (ch9): a packet's P_Key is accepted only if its partition (low 15 bits) equals
// the destination QP's, is not 0, and at least one of the two is a full member; anything else is
// dropped silently and counted as a P_Key violation at the receiving port.
#include <catch2/catch.hpp>

#include <cstring>

#include "sim/transport/p_key.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/transport_wire.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

TEST_CASE("R37 (ch9): P_Keys match on equal non-zero partitions with at least one full member",
          "[compliance][R37][ch9]") {
  struct Row {
    std::uint16_t packet, qp;
    bool ok;
  };
  const Row rows[] = {
      {0xFFFF, 0xFFFF, true},  {0xFFFF, 0x7FFF, true},  {0x7FFF, 0xFFFF, true},  {0x7FFF, 0x7FFF, false},
      {0x8005, 0x0005, true},  {0x0005, 0x8005, true},  {0x0005, 0x0005, false}, {0x8005, 0x8006, false},
      {0x8005, 0x8005, true},  {0x8000, 0x8000, false}, {0x0000, 0x8000, false}, {0x8000, 0x0000, false},
      {0x0000, 0x0000, false}, {0xFFFF, 0x8005, false},
  };
  for (const Row& r : rows) {
    INFO(std::hex << r.packet << " vs " << r.qp);
    CHECK(p_key_match(r.packet, r.qp) == r.ok);
  }
}

TEST_CASE("R37 (ch9): a packet whose P_Key the destination QP does not accept is dropped silently, counted as a "
          "P_Key violation, and never executed",
          "[compliance][R37][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  // a sends as a full member of partition 5, b is a limited member: they talk. c's table entry has
  // partition 0, which no packet can match.
  h1.set_p_keys({0x8005});
  h2.set_p_keys({0x0005, 0x8000});
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  connect(a, b);
  Endpoint c = ud_qp(h2, 0x42, 1, 1);
  std::memset(h2.memory().bytes(b.buf, 64), 0, 64);
  WireLog answers;
  h2.set_send_observer(&answers);
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] { REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 0, 8, 1)) == 0); });  // PSN 0x100
  // WRITEs at b's next PSN, 0x101, each writing its own byte to b.buf + 16.
  const std::uint16_t keys[] = {0x0005 /* limited-limited */, 0x8006 /* another partition */,
                                0x0000 /* partition 0 */, 0x8005 /* good */};
  for (int i = 0; i < 4; ++i) {
    const std::uint8_t v[4] = {static_cast<std::uint8_t>(0xA0 + i), 0, 0, 0};
    Packet p = write_only(h1, b, kOpcodeRcBase, 0x101, b.buf + 16, 4, v);
    TransportHeaders h = parse_transport_packet(p).h;
    h.bth.p_key = keys[i];
    tl.send(h1, static_cast<Time>(10 + i) * kUs, craft(h, 4, v));
  }
  TransportHeaders ud = headers_to(h1, h2, c.qp->qpn(), kOpcodeUdSendOnly, 0);
  ud.bth.p_key = 0x8000;
  ud.deth = {0x42, 0x123};
  tl.send(h1, 15 * kUs, craft(ud, 4));
  run_for(f, 30 * kUs);
  CHECK(h2.port_discards(1, DropReason::kPkeyViolation) == 4);  // P_KeyViolations
  CHECK(f.ledger().dropped_count(DropReason::kPkeyViolation) == 4);
  CHECK(f.ledger().dropped_total() == 4);
  CHECK(h2.memory().bytes(b.buf + 16, 1)[0] == 0xA3);  // only the good one executed
  CHECK(b.qp->stats().duplicates_received == 0);
  CHECK(c.poll_all().empty());
  // b answered the real WRITE and the good crafted one, nothing else; its answers carry its own
  // P_Key, 0x0005, which a (a full member) accepts.
  REQUIRE(answers.sent.size() == 2);
  CHECK(answers.sent[0].psn() == 0x100);
  CHECK(answers.sent[1].psn() == 0x101);
  CHECK(answers.sent[0].parsed.h.bth.p_key == 0x0005);
  auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 1);
  CHECK(wcs[0].status == IBV_WC_SUCCESS);
  CHECK(b.qp->state() == IBV_QPS_RTS);
}
