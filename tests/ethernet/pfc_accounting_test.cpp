// PFC's pure parts: the headroom of one link by hand, a port's pause timers and counters, and a
// switch's per-(ingress port, priority) accounting with its XOFF and XON decisions.
#include <catch2/catch.hpp>

#include "sim/ethernet/pfc_headroom.h"
#include "sim/ethernet/pfc_ingress.h"
#include "sim/ethernet/pfc_pause_state.h"

using namespace ibfsim;

TEST_CASE("PFC headroom: 100GbE over 100 m with a 4,096-byte MTU, by hand", "[ethernet][pfc]") {
  PfcHeadroomInputs in;
  in.rate = EthernetRate{EthernetSpeed::k100G, false};
  in.cable_propagation = 100 * 5 * kNs;  // 100 m at 5 ns/m
  // A RoCE v2 RDMA WRITE First of 4,096 bytes: Ethernet 14 + IPv4 20 + UDP 8 + BTH 12 + RETH 16
  // + payload + ICRC 4 + FCS 4.
  in.mtu_frame_bytes = 4096 + 14 + 20 + 8 + 12 + 16 + 4 + 4;
  REQUIRE(in.mtu_frame_bytes == 4174);
  in.response_time = 1 * kUs;
  const PfcHeadroom h = pfc_headroom(in);
  // 80 ps a byte: 500 ns are 6,250 bytes each way, 1 us 12,500 bytes.
  CHECK(h.cable == 12'500);
  CHECK(h.response == 12'500);
  CHECK(h.own_frame == 4174 + 20);  // + preamble/SFD 8 + gap 12
  CHECK(h.peer_frame == 4194);
  CHECK(h.pause_frame == 64 + 20);
  CHECK(h.phy == 0);
  CHECK(h.head == 8 + 62);
  CHECK(h.total() == 12'500 + 12'500 + 4194 + 4194 + 84 + 70);  // 33,542
  // RS(528,514): a receiver waits up to a 640-byte block, then the decoder's 100 ns (1,250 bytes).
  in.rate = EthernetRate{EthernetSpeed::k100G, true};
  in.phy_edges = 640 + 1250;
  CHECK(pfc_headroom(in).phy == 3780);
  CHECK(pfc_headroom(in).total() == 33'542 + 3780);
  // A part of a byte time is a whole byte.
  CHECK(bytes_in_time(in.rate, 81'000) == 2);
}

TEST_CASE("PFC pause state: XOFF, refresh and XON time a priority's pause, storms are counted", "[ethernet][pfc]") {
  const EthernetRate rate{EthernetSpeed::k100G, true};
  PfcPauseState s(2 * kUs);
  PfcFrame xoff;
  xoff.class_enable = 0x08;
  xoff.quanta[3] = 100;  // 512 ns
  s.receive(xoff, 1000 * kNs, rate);
  CHECK(s.paused(3, 1511 * kNs));
  CHECK(!s.paused(3, 1512 * kNs));
  CHECK(!s.paused(2, 1100 * kNs));
  CHECK(s.time_paused(3, 1200 * kNs) == 200 * kNs);
  s.receive(xoff, 1300 * kNs, rate);  // refreshed: to 1,812 ns
  CHECK(s.paused_until(3) == 1812 * kNs);
  PfcFrame xon;
  xon.class_enable = 0x08;
  s.receive(xon, 1500 * kNs, rate);
  CHECK(!s.paused(3, 1500 * kNs));
  CHECK(s.time_paused(3, 10 * kUs) == 500 * kNs);
  // A pause that runs out: 512 ns from 3 us, counted when the next XOFF comes.
  s.receive(xoff, 3 * kUs, rate);
  CHECK(s.time_paused(3, 10 * kUs) == 1012 * kNs);
  // Held by refreshes for 2 us and more (to 24 us): a storm, counted once.
  for (Time t = 20 * kUs; t <= 23600 * kNs; t += 400 * kNs) s.receive(xoff, t, rate);
  CHECK(s.stats().storms[3] == 1);
  s.receive(xon, 24 * kUs, rate);
  CHECK(s.stats().storms[3] == 1);
  // 500 + 512 + (24 - 20) us.
  CHECK(s.time_paused(3, 30 * kUs) == 1012 * kNs + 4 * kUs);
  CHECK(s.stats().xoff_received[3] == 3 + 10);
  CHECK(s.stats().xon_received[3] == 2);
  CHECK(s.stats().pause_frames_received() == 15);

  // The transmit side: requests merge into one frame.
  CHECK(!s.pending());
  s.request(3, 0xFFFF);
  s.request(4, 0);
  s.request(3, 0xFFFF);
  REQUIRE(s.pending());
  const PfcFrame f = s.take(MacAddress{2, 0, 0, 0, 0, 9});
  CHECK(f.class_enable == 0x18);
  CHECK(f.quanta[3] == 0xFFFF);
  CHECK(f.quanta[4] == 0);
  CHECK(f.src == MacAddress{2, 0, 0, 0, 0, 9});
  CHECK(!s.pending());
  CHECK(s.stats().xoff_sent[3] == 1);
  CHECK(s.stats().xon_sent[4] == 1);
  CHECK(s.stats().pause_frames_sent() == 2);
}

TEST_CASE("PFC ingress accounting: XOFF at the threshold, headroom after it, XON below xon, lossy pool apart",
          "[ethernet][pfc]") {
  EthernetPfcConfig c;
  c.lossless = 0x08;
  c.xoff_bytes = 10'000;
  c.xon_bytes = 5'000;
  c.mtu_frame_bytes = 4'000;
  PfcIngress pfc;
  pfc.configure(c, 120'000, {20'000, 20'000, 20'000});
  // Each port reserves xoff + a frame + headroom for its one lossless priority.
  CHECK(pfc.reserved(1) == 34'000);
  CHECK(pfc.lossy_pool() == 120'000 - 3 * 34'000);
  // Ten frames of 1,000 bytes from port 1 reach the threshold: XOFF on the tenth.
  for (int i = 0; i < 9; ++i) {
    const auto a = pfc.admit(1, 3, 1000);
    REQUIRE(a.admitted);
    CHECK(!a.charge.headroom);
    CHECK(a.signal == PfcIngress::Signal::kNone);
    pfc.queued(2, 3, a.charge);
  }
  auto a = pfc.admit(1, 3, 1000);
  CHECK(a.signal == PfcIngress::Signal::kXoff);
  pfc.queued(2, 3, a.charge);
  CHECK(pfc.xoff(1, 3));
  // Then the headroom: twenty more, and the next fits nowhere.
  for (int i = 0; i < 20; ++i) {
    a = pfc.admit(1, 3, 1000);
    REQUIRE(a.admitted);
    CHECK(a.charge.headroom);
    CHECK(a.signal == PfcIngress::Signal::kNone);
    pfc.queued(2, 3, a.charge);
  }
  CHECK(pfc.admit(1, 3, 1000).lossless_overflow);
  CHECK(pfc.ingress_bytes(1, 3) == 30'000);
  CHECK(pfc.headroom_peak(1, 3) == 20'000);
  // Another port's priority 3 is not paused.
  CHECK(!pfc.xoff(2, 3));
  // Frames leave by output 2 in queue order: XON once 5,000 bytes or fewer remain.
  for (int i = 0; i < 24; ++i) {
    pfc.started(2, 3);
    const auto r = pfc.left(2, 1000);
    CHECK(r.in == 1);
    CHECK(r.signal == PfcIngress::Signal::kNone);
  }
  pfc.started(2, 3);
  const auto r = pfc.left(2, 1000);
  CHECK(r.signal == PfcIngress::Signal::kXon);
  CHECK(r.prio == 3);
  CHECK(!pfc.xoff(1, 3));
  // A lossy priority uses the pool that is left, and is refused when it is full.
  for (int i = 0; i < 18; ++i) REQUIRE(pfc.admit(3, 0, 1000).admitted);
  CHECK(!pfc.admit(3, 0, 1000).admitted);
  CHECK(!pfc.admit(3, 0, 1000).lossless_overflow);
}
