// A bit error in a packet's end delimiter: the receiver's PHY does not see the packet end and runs
// on into the next packet's start delimiter, which closes the broken frame only then. The broken
// packet is dropped as a PHY error; the next one arrives intact (its frame is not mistaken for
// the leftover of the first).
#include <catch2/catch.hpp>

#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

TEST_CASE("a bit error in a packet's EGP: that packet is a PHY error, the packet after it is delivered",
          "[scenarios][phy]") {
  FabricOptions o;
  o.phy.bit_exact = true;
  o.link.training_delay = false;  // up at time 0: PHY edge n is at n ns
  Fabric& f = build_fabric("defaults: {link: {speed: QDR, width: 1x, length: 1m}}\n"
                           "nodes: [{name: h1, type: hca}, {name: h2, type: hca}]\n"
                           "cables: [{from: h1/1, to: h2/1}]\n",
                           o);
  Hca& h1 = *f.hca(0);
  Hca& h2 = *f.hca(1);
  // QDR 1x: one 8b/10b symbol per edge, 1 ns. h1 sends its 8 initialising flow-control packets
  // (8 symbols each) at edges 0-63; two UD SENDs of 64 bytes posted at 1 us follow back to back:
  // LRH 8 + BTH 12 + DETH 8 + 64 + ICRC 4 + VCRC 2 = 98 bytes, with SDP and EGP 100 symbols:
  // A at edges 1000-1099 (EGP at 1099), B at 1100-1199. One bit of A's EGP is flipped.
  LinkPort& tx = h1.port();
  BitExactLinkConfig c = tx.phy()->config();
  c.forced_errors = {{0, 1099, 0}};
  tx.set_bit_exact(c);
  Poster p;
  aim(p, h1, h2, 64, 2);
  Recorder rec;
  h1.set_send_observer(&rec);
  h2.set_delivery_observer(&rec);
  fire_at(h1, 1 * kUs, &p);
  run_for(f, 10 * kUs);  // checks the ledger too
  REQUIRE(rec.injected.size() == 2);
  CHECK(rec.injected[0] == 1000 * kNs);
  CHECK(rec.injected[1] == 1100 * kNs);
  CHECK(tx.phy_totals().bits_flipped == 1);
  CHECK(h2.port().stats().rx_phy_errors == 1);
  CHECK(f.ledger().dropped_count(DropReason::kPhyError) == 1);
  CHECK(f.ledger().dropped_total() == 1);
  REQUIRE(rec.delivered.size() == 1);
  CHECK(rec.delivered[0].injected == rec.injected[1]);
}
