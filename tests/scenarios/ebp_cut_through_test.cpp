// A bad packet is caught at its tail. A switch that has not started forwarding it by then discards
// it (counted at its input); one that has cut it through already ends it with EBP, and so does the
// next cut-through switch, until a receiver drops it at the link layer. Deterministic bit errors
// on the bit-exact link h1 -> sw1 make the counts exact at every hop.
#include <catch2/catch.hpp>

#include "sim/fabric/static_multicast.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

TEST_CASE("a corrupted packet is discarded at the tail if not yet forwarded, else ended with EBP at every "
          "cut-through hop and dropped by the next receiver, with exact counts and credits",
          "[scenarios][phy][ebp]") {
  FabricOptions o;
  o.phy.bit_exact = true;
  o.phy.links = {{2, 1}};  // h1/1: the cable h1 - sw1 runs bit-exact
  Fabric& f = build_fabric("defaults: {link: {speed: EDR, width: 4x, length: 2m}, switch: {latency: 100ns}}\n"
                           "nodes: [{name: sw1, type: switch, ports: 4}, {name: sw2, type: switch, ports: 4},"
                           " {name: h1, type: hca}, {name: h2, type: hca}]\n"
                           "cables: [{from: h1/1, to: sw1/1}, {from: sw1/2, to: sw2/1}, {from: sw2/2, to: h2/1}]\n",
                           o);
  Hca& h1 = *f.hca(2);
  Hca& h2 = *f.hca(3);
  Switch& sw1 = *f.switch_at(0);
  Switch& sw2 = *f.switch_at(1);
  // PHY edges count from link up. h1 first sends its 8 initialising flow-control packets (edges
  // 0-7); the messages are posted 1 us later, at edge 391 (1000 / 2.56 = 390.6):
  //   A, 2 KiB payload: 2084 slots = 261 blocks, edges 391-456; its tail is in at sw1 long after
  //     sw1 started it on its output (head + 100 ns), and likewise at sw2: cut through twice.
  //   B, 64 B payload: 100 slots = 13 blocks, edges 457-460; its tail is in 4 edges after its head,
  //     before sw1 may start it: store and forward.
  //   C, 2 KiB payload, edges 461-526: untouched.
  // In A, payload bit 2 (line bit 4) of lane 1 at edge 421 (data block 121): the descrambler
  // spreads it to bits 2, 41 and 60 of that block's data, which the VCRC catches. In B, the sync
  // header's first bit of lane 0 at edge 458 (data block 4): an invalid sync header, a PHY error.
  LinkPort& tx = h1.port();
  BitExactLinkConfig c = tx.phy()->config();
  c.forced_errors = {{1, 421, 4}, {0, 458, 0}};
  tx.set_bit_exact(c);

  const Time up = f.training(0).duration;
  REQUIRE(up % 2'560'000 == 0);  // a whole number of edges: edge numbers after link up are as above
  Poster a, b, cc;
  aim(a, h1, h2, 2048);
  aim(b, h1, h2, 64);
  aim(cc, h1, h2, 2048);
  Recorder rec;
  h1.set_send_observer(&rec);
  h2.set_delivery_observer(&rec);
  fire_at(h1, up + 1 * kUs, &a);
  fire_at(h1, up + 1 * kUs, &b);
  fire_at(h1, up + 1 * kUs, &cc);
  run_for(f, up + 20 * kUs);  // checks the ledger: every packet delivered or dropped with a reason

  constexpr Time kEdge = 2'560'000;
  REQUIRE(rec.injected.size() == 3);
  CHECK(rec.injected[0] == up + 391 * kEdge);
  CHECK(rec.injected[1] == up + 457 * kEdge);
  CHECK(rec.injected[2] == up + 461 * kEdge);
  CHECK(tx.phy_totals().bits_flipped == 2);

  // sw1: A failed its VCRC after sw1 had cut it through (stomped on port 2); B was still queued
  // (discarded at port 1 as a PHY error).
  const LinkPortStats& sw1_in = sw1.port(1).stats();
  CHECK(sw1_in.rx_vcrc_errors == 1);
  CHECK(sw1_in.rx_phy_errors == 1);
  CHECK(sw1_in.rx_ebp == 0);
  CHECK(sw1.port_discards(1, DropReason::kPhyError) == 1);
  CHECK(sw1.port_discards(1, DropReason::kVcrcError) == 0);
  CHECK(sw1.port(2).stats().tx_ebp == 1);
  CHECK(sw1.stats().discarded == 1);
  CHECK(sw1.stats().forwarded == 2);  // A (stomped) and C
  // sw2: A arrived ending in EBP after sw2 had cut it through too: stomped again, not discarded.
  CHECK(sw2.port(1).stats().rx_ebp == 1);
  CHECK(sw2.port(1).stats().rx_errors() == 1);
  CHECK(sw2.stats().discarded == 0);
  CHECK(sw2.port(2).stats().tx_ebp == 1);
  // h2 drops A at the link layer and delivers C.
  CHECK(h2.port().stats().rx_ebp == 1);
  CHECK(h2.port().stats().rx_errors() == 1);
  REQUIRE(rec.delivered.size() == 1);
  CHECK(rec.delivered[0].injected == rec.injected[2]);
  CHECK(f.ledger().dropped_count(DropReason::kEbp) == 1);
  CHECK(f.ledger().dropped_count(DropReason::kPhyError) == 1);
  CHECK(f.ledger().dropped_total() == 2);
  CHECK(f.ledger().delivered_count() == 1);
  // Credits: every receive buffer is empty again and every transmitter has its full window back.
  // (Each receiving port with the port at the far end of its cable.)
  for (auto [p, far] : {std::pair<LinkPort*, LinkPort*>{&sw1.port(1), &h1.port()}, {&sw1.port(2), &sw2.port(1)},
                        {&sw2.port(1), &sw1.port(2)}, {&sw2.port(2), &h2.port()}, {&h2.port(), &sw2.port(2)}}) {
    INFO(p->name());
    CHECK(p->rx_buffer(0).occupied() == 0);
    CHECK(far->tx_credits(0).available() == p->rx_buffer(0).capacity());
  }
}

TEST_CASE("a corrupted multicast packet: the copies already cut through end with EBP, none is made after, "
          "and a packet caught before any copy started is discarded once",
          "[scenarios][phy][ebp][multicast]") {
  FabricOptions o;
  o.phy.bit_exact = true;
  o.phy.links = {{1, 1}};  // h1/1
  o.multicast = {MulticastGroup{"g", {2, 3}, {1}}};
  Fabric& f = build_fabric("defaults: {link: {speed: EDR, width: 4x, length: 2m}, switch: {latency: 100ns}}\n"
                           "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca},"
                           " {name: h2, type: hca}, {name: h3, type: hca}]\n"
                           "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3}]\n",
                           o);
  Hca& h1 = *f.hca(1);
  Switch& sw1 = *f.switch_at(0);
  for (std::size_t m : {2, 3}) f.hca(m)->join_multicast(kMulticastLidBase, f.hca(m)->create_ud_qp(0x42));
  // The same three messages and bit errors as above: A (2 KiB, VCRC error, both copies cut
  // through), B (64 B, PHY error, caught before its copies may start), C (2 KiB, good).
  LinkPort& tx = h1.port();
  BitExactLinkConfig c = tx.phy()->config();
  c.forced_errors = {{1, 421, 4}, {0, 458, 0}};
  tx.set_bit_exact(c);
  Poster a, b, cc;
  for (auto [p, bytes] : {std::pair<Poster*, std::uint32_t>{&a, 2048}, {&b, 64}, {&cc, 2048}}) {
    p->hca = &h1;
    p->src = h1.create_ud_qp(0x42);
    p->dlid = kMulticastLidBase;
    p->dst = kMulticastQpn;
    p->bytes = bytes;
  }
  Recorder rec;
  for (std::size_t m : {2, 3}) f.hca(m)->set_delivery_observer(&rec);
  const Time up = f.training(0).duration;
  for (Poster* p : {&a, &b, &cc}) fire_at(h1, up + 1 * kUs, p);
  run_for(f, up + 20 * kUs);

  CHECK(sw1.port(1).stats().rx_vcrc_errors == 1);
  CHECK(sw1.port(1).stats().rx_phy_errors == 1);
  CHECK(sw1.port_discards(1, DropReason::kPhyError) == 1);
  CHECK(sw1.port(2).stats().tx_ebp == 1);
  CHECK(sw1.port(3).stats().tx_ebp == 1);
  CHECK(sw1.port(2).stats().tx_packets == 2);  // copies of A and C; none of B
  CHECK(f.hca(2)->port().stats().rx_ebp == 1);
  CHECK(f.hca(3)->port().stats().rx_ebp == 1);
  CHECK(rec.delivered.size() == 2);  // C, once per member
  const PacketLedger& l = f.ledger();
  CHECK(l.created_count() == 3 + 4);  // three messages, two copies each of A and C
  CHECK(l.replicated_count() == 2);
  CHECK(l.delivered_count() == 2);
  CHECK(l.dropped_count(DropReason::kEbp) == 2);
  CHECK(l.dropped_count(DropReason::kPhyError) == 1);
  for (unsigned port = 1; port <= 3; ++port) CHECK(sw1.port(port).rx_buffer(0).occupied() == 0);
}
