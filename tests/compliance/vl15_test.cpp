// R3 (ch7): VL15 is not flow controlled; a VL15 packet that finds no buffer space is dropped and
// counted (VL15Dropped), never blocks the link, and data VLs are unaffected.
#include <catch2/catch.hpp>

#include "sim/transport/ud_send_packet.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
// Sends `count` management-sized packets on VL15 straight out of an HCA port, back to back.
struct Vl15Sender {
  Fabric* fabric = nullptr;
  Hca* hca = nullptr;
  Lid dlid = 0;
  int left = 0;
  void fire() {
    LinkPort& port = hca->port();
    if (!port.can_start_data()) {
      fire_at(*hca, ScheduledModule::now() + 1 * kNs, this);
      return;
    }
    Packet* p = fabric->pool().acquire();
    UdSendFields f;
    f.vl = 15;
    f.dlid = dlid;
    f.slid = hca->lid();
    f.dest_qp = 0;  // QP0, the SMI
    f.q_key = 0;
    f.src_qp = 0;
    build_ud_send(*p, f, 256, nullptr);  // a MAD is 256 bytes: 294 bytes on the wire, 5 blocks
    p->management = true;  // this test builds the management packets: VL15 carries nothing else
    fabric->ledger().management_created();  // VL15 packets are counted apart from the workload's
    REQUIRE(port.may_send(15, 5));  // no credits needed on VL15, however many were used
    port.transmit(p);
    if (--left > 0) fire_at(*hca, ScheduledModule::now() + 1 * kNs, this);
  }
};
}  // namespace

TEST_CASE("R3 (ch7): a VL15 packet with no buffer space is dropped and counted, without credits or blocking",
          "[compliance][R3][ch7]") {
  // h1 -> sw1 at 4x EDR, sw1 -> h3 at 1x SDR. Six 5-block management packets arrive back to back
  // (10 edges of 2.56 ns each) for an output that needs 1.18 us per packet; the switch's VL15
  // buffer holds 10 blocks: the first two fit, the other four find no room and are dropped.
  Fabric& f = build_fabric(
      "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca}]\n"
      "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3, speed: SDR, width: 1x}]\n");
  Vl15Sender s;
  s.fabric = &f;
  s.hca = f.hca(1);
  s.dlid = f.hca(3)->lid();
  s.left = 6;
  fire_at(*f.hca(1), 1 * kUs, &s);
  // Data on VL0 from h2 to h3 behind them still flows.
  Poster data;
  aim(data, *f.hca(2), *f.hca(3), 1024, 5);
  Recorder rec;
  f.hca(3)->set_delivery_observer(&rec);
  fire_at(*f.hca(2), 2 * kUs, &data);
  run_for(f, 50 * kUs);
  CHECK(f.switch_at(0)->port(1).stats().vl15_dropped == 4);
  CHECK(f.ledger().management_dropped_count(DropReason::kVl15Overflow) == 4);
  CHECK(f.switch_at(0)->port(3).vl_stats(15).tx_packets == 2);
  // The two that reached h3 carry no MAD (256 zero bytes, BaseVersion 0): its SMA discards them.
  CHECK(f.ledger().management_dropped_count(DropReason::kMalformed) == 2);
  CHECK(f.ledger().dropped_total() == 0);
  CHECK(rec.delivered.size() == 5);
}
