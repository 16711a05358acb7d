// R43 (ch9), the connected services' path check (IBA Vol1 9.6.1.5, QueuePair::from_peer): an RC or UC QP
// takes packets from its peer's LID alone (and with a GRH, its GID). The forged packets here have
// everything else right (QP number, the PSN the QP expects, the region's R_Key), so that only the
// check stands between them and the QP's memory.
#include <catch2/catch.hpp>

#include <cstring>

#include "sim/transport/opcode.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/transport_wire.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {
constexpr unsigned kRemoteWrite = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
constexpr Lid kForgedLid = 7;  // no port has it; switches forward by the DLID alone
}  // namespace

TEST_CASE("R43 (ch9): an RC request from any SLID but the peer's is dropped as source_mismatch before the PSN "
          "check, and the same request from the peer executes",
          "[compliance][R43][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kRemoteWrite);
  connect(a, b);  // b expects PSN 0x100
  std::memset(h2.memory().bytes(b.buf, 64), 0, 64);
  WireLog wire;
  h2.set_send_observer(&wire);
  const std::uint8_t forged[4] = {0xEE, 0xEE, 0xEE, 0xEE};
  const std::uint8_t genuine[4] = {0x11, 0x22, 0x33, 0x44};
  Timeline tl;
  // Three forged WRITEs at ePSN, then ahead of it, then behind it: none reaches the PSN check.
  const Psn psns[] = {0x100, 0x105, 0x0FF};
  for (int i = 0; i < 3; ++i) {
    Packet p = write_only(h1, b, kOpcodeRcBase, psns[i], b.buf, 4, forged);
    TransportHeaders h = parse_transport_packet(p).h;
    h.lrh.slid = kForgedLid;
    tl.send(h1, static_cast<Time>(i + 1) * kUs, craft(h, 4, forged));
  }
  tl.send(h1, 5 * kUs, write_only(h1, b, kOpcodeRcBase, 0x100, b.buf + 8, 4, genuine));
  run_for(f, 20 * kUs);
  CHECK(h2.port_discards(1, DropReason::kSourceMismatch) == 3);
  CHECK(f.ledger().dropped_count(DropReason::kSourceMismatch) == 3);
  const std::uint8_t* m = h2.memory().bytes(b.buf, 12);
  CHECK(std::memcmp(m, "\0\0\0\0\0\0\0\0", 8) == 0);  // the forged bytes went nowhere
  CHECK(std::memcmp(m + 8, genuine, 4) == 0);
  // No NAK for the one ahead, no re-ACK for the one behind: the forged packets left no trace
  // but the drops; the genuine one got its ACK.
  REQUIRE(wire.sent.size() == 1);
  CHECK(wire.sent[0].opcode() == op::kAcknowledge);
  CHECK(wire.sent[0].psn() == 0x100);
  CHECK(b.qp->stats().naks_seq_sent == 0);
  CHECK(b.qp->stats().duplicates_received == 0);
  CHECK(b.qp->stats().out_of_sequence_dropped == 0);
  CHECK(b.qp->state() == IBV_QPS_RTS);
}

TEST_CASE("R43 (ch9): a forged ACK cannot complete a request, nor one carrying a GRH on a path without one",
          "[compliance][R43][ch9]") {
  Fabric& f = build_fabric(kTwoHosts, with_data());
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Endpoint a = make_endpoint(h1, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(h2, IBV_QPT_RC, 4096, kRemoteWrite);
  connect(a, b);  // a sends from 0x100, b from 0x200
  reset_qp(b);    // b never answers: only forged ACKs reach a
  Timeline tl;
  tl.at(h1, 1 * kUs, [&] { REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 0, 64, 9)) == 0); });
  // An ACK for 0x100 from a LID that is not b's: it would complete the WRITE.
  Packet ack = aeth_to(h2, a, 0x100, 0x1F, 1);
  TransportHeaders h = parse_transport_packet(ack).h;
  h.lrh.slid = kForgedLid;
  tl.send(h2, 5 * kUs, craft(h));
  // The peer's own LID, but with a GRH the path (no GRH) does not have.
  TransportHeaders g = parse_transport_packet(aeth_to(h2, a, 0x100, 0x1F, 1)).h;
  g.grh = Grh{};
  g.lrh.lnh = kLnhIbaGlobal;
  tl.send(h2, 6 * kUs, craft(g));
  run_for(f, 20 * kUs);
  CHECK(h1.port_discards(1, DropReason::kSourceMismatch) == 2);
  CHECK(a.poll_all().empty());  // still waiting for b
  CHECK(a.qp->stats().acks_received == 0);
}
