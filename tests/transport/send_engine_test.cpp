// The send engine of an HCA port, driven through its own API on an HCA with no cable: what the
// generator and raw sends queue, and on which VL; the order in which verbs QPs on one VL take
// turns; when each staged packet's payload DMA is done. The port stays Down, so the output never
// sends: the test plays the output stage (PortOutput::Source: candidate, take, sent).
#include <catch2/catch.hpp>

#include <algorithm>
#include <utility>
#include <vector>

#include "sim/transport/deth.h"
#include "sim/transport/ud_send_packet.h"
#include "tests/support/standalone_hca.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

// LID 0x10, four data VLs; SL s -> VL s for s < 4, SL 4 -> VL15, SL 5 -> VL 6 (not operational).
HcaConfig four_vls() {
  HcaConfig c;
  c.port_lids = {0x10};
  c.buffers.op_vls = 4;
  std::array<std::uint8_t, 16> vls{};
  for (std::uint8_t sl = 0; sl < 4; ++sl) vls[sl] = sl;
  vls[4] = kVl15;
  vls[5] = 6;
  c.sl_to_vl = SlToVlTable::from(vls);
  return c;
}

// The packet's LRH, BTH and DETH, as its bytes say.
struct Headers {
  Lrh lrh;
  Bth bth;
  Deth deth;
};
Headers headers(const Packet& p) {
  const auto v = parse_ud_send(p);
  REQUIRE(v);
  return {v->lrh, v->bth, v->deth};
}

}  // namespace

TEST_CASE("Send engine: a generator's datagrams are queued per VL in post order, R16 drops counted at once",
          "[transport][hca][send_engine]") {
  StandaloneHca& s = standalone_hca(four_vls());
  Hca& h = *s.hca;
  SendEngine& e = h.send_engine(1);
  const Qpn a = h.create_ud_qp(0x42), b = h.create_ud_qp(0x43);
  REQUIRE(a == 0x100);
  REQUIRE(b == 0x101);
  REQUIRE(h.qp(a)->is_generator());
  const std::uint64_t a1 = h.post_ud_send(a, 0x20, 0x300, 0x42, 100, true, 1, 7);
  const std::uint64_t b1 = h.post_ud_send(b, 0x21, 0x301, 0x43, 200, false, 0, 8);
  const std::uint64_t a2 = h.post_ud_send(a, 0x20, 0x300, 0x42, 300, true, 1, 7);
  const std::uint64_t a3 = h.post_ud_send(a, 0x20, 0x300, 0x42, 50, true, 4);   // SL 4 -> VL15
  const std::uint64_t b2 = h.post_ud_send(b, 0x21, 0x301, 0x43, 50, true, 5);   // SL 5 -> VL 6
  const std::uint64_t a4 = h.post_ud_send(a, 0x20, 0x300, 0x42, 0, true, 1);
  // Packet ids: node 0, in post order, dropped ones included.
  CHECK(std::vector<std::uint64_t>{a1, b1, a2, a3, b2, a4} == std::vector<std::uint64_t>{0, 1, 2, 3, 4, 5});

  CHECK(e.queued() == 4);
  CHECK(e.queued(0) == 1);
  CHECK(e.queued(1) == 3);
  CHECK(e.queued(kVl15) == 0);
  CHECK(e.waiting_vls() == 0b11);
  CHECK(h.queued_packets() == 4);
  CHECK(s.ledger.created_count() == 6);
  // A packet that can never be sent counts as injected and dropped at once.
  CHECK(s.ledger.dropped_count(DropReason::kSlToVlDrop) == 2);
  CHECK(s.ledger.injected_count() == 2);
  // Injected at the wire: no payload to read over the host interface.
  CHECK(e.staged_ready(0) == 0);
  CHECK(e.staged_ready(1) == 0);
  CHECK(e.candidate(1) == PortOutput::Candidacy::kBlocked);  // ready, but the port is Down

  // VL 1 in post order; each QP's PSNs run on, through the drop.
  std::vector<std::pair<std::uint64_t, Psn>> vl1;
  while (e.queued(1)) {
    Packet* p = e.take(1);
    const Headers x = headers(*p);
    CHECK(x.lrh.vl == 1);
    CHECK(x.lrh.sl == 1);
    CHECK(x.lrh.dlid == 0x20);
    CHECK(x.lrh.slid == 0x10);
    CHECK(x.bth.p_key == 0xFFFF);
    CHECK(x.bth.dest_qp == 0x300);
    CHECK(x.deth.q_key == 0x42);
    CHECK(x.deth.src_qp == a);
    CHECK(p->src_qp == a);
    CHECK(p->measured);
    CHECK(p->payload_len == (p->id == a1 ? 100u : p->id == a2 ? 300u : 0u));
    CHECK(p->payload.empty());  // elided: payloads are not carried
    vl1.emplace_back(p->id, x.bth.psn);
    s.pool.release(p);
  }
  CHECK(vl1 == std::vector<std::pair<std::uint64_t, Psn>>{{a1, 0}, {a2, 1}, {a4, 3}});
  Packet* p = e.take(0);
  CHECK(p->id == b1);
  CHECK(headers(*p).bth.psn == 0);
  CHECK(headers(*p).deth.src_qp == b);
  CHECK_FALSE(p->measured);
  CHECK(p->flow == 8);
  s.pool.release(p);
  CHECK(e.waiting_vls() == 0);
  CHECK(h.queued_packets() == 0);
}

TEST_CASE("Send engine: raw packets keep their bytes and go on the VL their LRH names, VL15 included",
          "[transport][hca][send_engine]") {
  StandaloneHca& s = standalone_hca(four_vls());
  Hca& h = *s.hca;
  SendEngine& e = h.send_engine(1);
  auto raw = [](std::uint8_t vl) {
    UdSendFields f;
    f.vl = vl;
    f.dlid = 0x20;
    f.slid = 0x10;
    f.dest_qp = 0x123;
    Packet p;
    build_ud_send(p, f, 12, nullptr);
    p.id = 99;  // replaced: the HCA numbers what it sends
    return p;
  };
  const Packet r2 = raw(2), r15 = raw(kVl15), r5 = raw(5);
  const std::uint64_t i2 = h.send_raw(r2), i15 = h.send_raw(r15), i5 = h.send_raw(r5);
  CHECK(std::vector<std::uint64_t>{i2, i15, i5} == std::vector<std::uint64_t>{0, 1, 2});
  CHECK(e.queued(2) == 1);
  CHECK(e.queued(kVl15) == 1);
  CHECK(e.waiting_vls() == (1u << 2 | 1u << kVl15));
  CHECK(s.ledger.dropped_count(DropReason::kSlToVlDrop) == 1);  // VL 5 is not operational
  Packet* p = e.take(kVl15);
  CHECK(p->id == i15);
  CHECK(std::equal(p->header.begin(), p->header.begin() + p->header_len, r15.header.begin()));
  CHECK(p->vcrc == r15.vcrc);
  CHECK(p->icrc == r15.icrc);
  s.pool.release(p);
  p = e.take(2);
  CHECK(p->id == i2);
  s.pool.release(p);
}

TEST_CASE("Send engine: verbs QPs on one VL take turns, one packet staged at a time, each DMA behind the last",
          "[transport][hca][send_engine]") {
  HcaConfig c = four_vls();
  StandaloneHca& s = standalone_hca(c);
  Hca& h = *s.hca;
  SendEngine& e = h.send_engine(1);
  // Two UC QPs on SL 0 (VL 0), connected to each other on this HCA: nothing comes back.
  Endpoint a = make_endpoint(h, IBV_QPT_UC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  Endpoint b = make_endpoint(h, IBV_QPT_UC, 8192, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  RcParams prm;
  prm.mtu = IBV_MTU_1024;
  prm.access = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
  connect(a, b, prm);
  // Three 1024-byte packets each; both doorbells ring at 250 ns, a's first.
  REQUIRE(h.post_send(*a.qp, write_wr(a, b, 0, 3072, 1)) == 0);
  REQUIRE(h.post_send(*b.qp, write_wr(b, a, 0, 3072, 2)) == 0);
  CHECK(e.queued() == 0);
  run_standalone_for(1 * kUs);

  // One packet of a's staged at its doorbell, its payload read over PCIe gen3 x16.
  DmaPipe pcie(c.host);
  const Time d = pcie.transfer(0, 1024);  // one payload's DMA time
  REQUIRE(d > 0);
  CHECK(e.queued() == 1);
  CHECK(e.queued(0) == 1);
  CHECK(e.staged_ready(0) == 250 * kNs + d);
  CHECK(e.candidate(0) == PortOutput::Candidacy::kBlocked);  // the DMA is done; the port is Down

  // Playing the output at 1 us: each packet taken and sent stages the next one, whose DMA starts
  // when the previous one's is done (one host interface), so it is not ready yet.
  std::vector<std::pair<Qpn, Psn>> order;
  for (int k = 0; k < 6; ++k) {
    INFO("packet " << k);
    REQUIRE(e.queued(0) == 1);
    Packet* p = e.take(0);
    const ParsedPacket pp = parse_transport_packet(*p);
    order.emplace_back(p->src_qp, pp.h.bth.psn);
    CHECK(p->payload_len == 1024);
    e.sent(0, p, h.now());
    CHECK(p->injected == 1 * kUs);
    if (k < 5) {
      CHECK(e.queued(0) == 1);
      CHECK(e.staged_ready(0) == 1 * kUs + (k + 1) * d);
      CHECK(e.candidate(0) == PortOutput::Candidacy::kNone);  // its payload is still coming
    }
    s.pool.release(p);
  }
  CHECK(e.queued() == 0);
  // a, a, then b joins the turns: a's third packet comes after b's first.
  const Qpn qa = a.qp->qpn(), qb = b.qp->qpn();
  CHECK(order == std::vector<std::pair<Qpn, Psn>>{{qa, 0x100}, {qa, 0x101}, {qb, 0x200}, {qa, 0x102}, {qb, 0x201},
                                                  {qb, 0x202}});
  CHECK(h.stats().sent_packets == 6);
  CHECK(h.stats().sent_payload_bytes == 6 * 1024);

  // An IBV_SEND_INLINE payload came with the doorbell: staged with no DMA, at the doorbell.
  auto wr = write_wr(a, b, 0, 64, 3);
  wr.send_flags |= IBV_SEND_INLINE;
  REQUIRE(h.post_send(*a.qp, wr) == 0);
  run_standalone_for(1 * kUs);
  CHECK(e.queued(0) == 1);
  CHECK(e.staged_ready(0) == 1 * kUs + 250 * kNs);
}
