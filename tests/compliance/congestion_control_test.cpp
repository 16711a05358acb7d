// Rule R42 (IBA Vol1 Annex A10): congested switch ports set FECN (never on packets smaller than
// Packet_Size); the destination returns BECN (on an RC ACK, or in a CNP, OpCode 0x80); the source
// raises its CCTI by CCTI_Increase and spaces its packets by the CCT entry. Plus the CC MADs that
// program all of it (class 0x21), applied through each node's Congestion Control Agent.
#include <catch2/catch.hpp>

#include <map>

#include "sim/network/fecn_marker.h"
#include "sim/subnet_manager/congestion_control/congestion_control_agent.h"
#include "sim/transport/bth.h"
#include "sim/transport/cnp.h"
#include "sim/transport/icrc.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/verbs_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

// h1, h2 and h3 on one switch (ports 1, 2, 3), 4x EDR, 2 m cables, links up at time 0.
const char* kThreeHosts =
    "defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3}]\n";

// Congestion control with marking by queue length only (Threshold `threshold`), CCTI never
// decreasing (CCTI_Timer 0) so that the index counts every BECN.
FabricOptions cc_options(std::uint8_t threshold, std::uint8_t packet_size, std::uint8_t increase) {
  FabricOptions o = no_training();
  o.congestion_control.enabled = true;
  o.congestion_control.threshold = threshold;
  o.congestion_control.packet_size = packet_size;
  o.congestion_control.marking_rate = 0;
  o.congestion_control.ca = {0, increase, 0, 0};
  o.congestion_control.cct = linear_cct(127, 3, 1);
  return o;
}

// Every packet leaving sw1 port 3 marked: credit starvation on port 3 at CS_Threshold 15 (fewer
// than 120 of h3's 128 credits left after any packet of 9 or more credits), queue marking off.
FabricOptions mark_everything_to_h3(std::uint8_t packet_size, std::uint8_t increase) {
  FabricOptions o = cc_options(0, packet_size, increase);
  o.congestion_control.credit = CongestionControlSettings::Ports::kList;
  o.congestion_control.credit_ports = {{0, 3}};
  o.congestion_control.cs_threshold = 15;
  return o;
}

// Records what h3 delivers (FECN bit, size) and the CNPs it sends.
struct Watch : DeliveryObserver, SendObserver {
  struct Got {
    bool fecn;
    std::uint32_t credits;
    bool cnp;
  };
  std::vector<Got> delivered;
  std::vector<std::vector<std::uint8_t>> cnps;
  void on_delivered(Hca&, const Packet& p, Time) override {
    delivered.push_back({packet_fecn(p), credits_for_bytes(p.wire_bytes()), is_cnp(p)});
  }
  void on_injected(Hca&, const Packet& p) override {
    if (!is_cnp(p)) return;
    std::vector<std::uint8_t> f;
    p.write_frame(f);
    cnps.push_back(f);
  }
};

}  // namespace

TEST_CASE("R42 (A10): a congested switch port sets FECN, never on packets smaller than Packet_Size",
          "[compliance][R42][A10]") {
  // h1 and h2 each queue 20 packets for h3 at once, alternating 2048-byte (34 credits: 2082 bytes)
  // and 100-byte (3 credits: 134 bytes) payloads: the output to h3 takes them at half the rate
  // they come in, so packets wait behind each other at sw1. Threshold 15 marks a packet with 8 or
  // more blocks waiting behind it; Packet_Size 4 spares the 3-credit packets.
  Fabric& f = build_fabric(kThreeHosts, cc_options(15, 4, 1));
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Hca& h3 = *f.hca(3);
  const Qpn q3 = h3.create_ud_qp(0x42);
  const Qpn q1 = h1.create_ud_qp(0x42), q2 = h2.create_ud_qp(0x42);
  At burst([&] {
    for (int i = 0; i < 20; ++i) {
      h1.post_ud_send(q1, h3.lid(), q3, 0x42, i % 2 ? 100 : 2048, true);
      h2.post_ud_send(q2, h3.lid(), q3, 0x42, i % 2 ? 100 : 2048, true);
    }
  });
  Watch w;
  h3.set_delivery_observer(&w);
  fire_at(h3, 1 * kUs, &burst);
  run_for(f, 100 * kUs);
  std::size_t data = 0, marked_big = 0, small = 0;
  for (const auto& g : w.delivered) {
    if (g.cnp) continue;
    ++data;
    if (g.credits < 4) {
      ++small;
      CHECK_FALSE(g.fecn);
    } else if (g.fecn) {
      ++marked_big;
    }
  }
  CHECK(data == 40);
  CHECK(small == 20);
  CHECK(marked_big >= 10);  // most big packets had another one waiting behind them
  const CongestionDetector::PortStats& st = f.switch_at(0)->congestion_detector()->stats(3);
  CHECK(st.fecn_marked == marked_big);
  CHECK(st.too_small > 0);
  // Every marked packet passed h3's ICRC check (FECN is in the ICRC's variant byte): none dropped.
  CHECK(f.ledger().dropped_count(DropReason::kIcrcError) == 0);
  CHECK(f.ledger().dropped_total() == 0);
}

TEST_CASE("R42 (A10): a FECN-marked UD packet is answered with a CNP (OpCode 0x80, BECN) to its source QP",
          "[compliance][R42][A10]") {
  Fabric& f = build_fabric(kThreeHosts, mark_everything_to_h3(1, 2));
  Hca& h2 = *f.hca(2);
  Hca& h3 = *f.hca(3);
  const Qpn q3 = h3.create_ud_qp(0x42);
  const Qpn q2 = h2.create_ud_qp(0x42);
  At send([&] {
    for (int i = 0; i < 3; ++i) h2.post_ud_send(q2, h3.lid(), q3, 0x42, 2048, true);
  });
  Watch w;
  h3.set_delivery_observer(&w);
  h3.set_send_observer(&w);
  fire_at(h3, 1 * kUs, &send);
  run_for(f, 50 * kUs);
  REQUIRE(w.cnps.size() == 3);
  // The CNP: LRH SL 0, DLID = h2, SLID = h3, PktLen 6; BTH OpCode 0x80, BECN set, FECN clear,
  // P_Key 0xFFFF, DestQP = h2's QP, PSN 0; valid ICRC (the packet is 26 bytes).
  for (const auto& c : w.cnps) {
    REQUIRE(c.size() == 26);
    CHECK(load_be16(c.data() + 2) == h2.lid());
    CHECK(load_be16(c.data() + 6) == h3.lid());
    CHECK((load_be16(c.data() + 4) & 0x7FF) == 6);
    const Bth b = decode_bth(c.data() + 8);
    CHECK(b.opcode == 0x80);
    CHECK(b.becn);
    CHECK_FALSE(b.fecn);
    CHECK(b.p_key == 0xFFFF);
    CHECK(b.dest_qp == q2);
    CHECK(b.psn == 0);
  }
  CHECK(h3.cc_counters().at(q3).fecn_received == 3);
  CHECK(h3.cc_counters().at(q3).cnp_sent == 3);
  // The source took each BECN: CCTI = 3 x CCTI_Increase 2.
  CHECK(h2.cc_counters().at(q2).cnp_received == 3);
  CHECK(h2.cc_throttle()->ccti(q2) == 6);
  CHECK(f.ledger().dropped_total() == 0);
}

TEST_CASE("R42 (A10): an RC request with an ACK due carries the BECN on that ACK, without one a CNP",
          "[compliance][R42][A10]") {
  // A 3-packet RDMA WRITE (PMTU 1024) from h1 to h3, every packet marked on the way. The First and
  // Middle packets ask for no ACK: each is answered with a CNP; the Last has AckReq: its ACK
  // carries the BECN. The requester takes 3 BECNs: CCTI 3 x 4.
  Fabric& f = build_fabric(kThreeHosts, mark_everything_to_h3(1, 4));
  Hca& h1 = *f.hca(1);
  Hca& h3 = *f.hca(3);
  const unsigned access = verbs::IBV_ACCESS_LOCAL_WRITE | verbs::IBV_ACCESS_REMOTE_WRITE;
  Endpoint a = make_endpoint(h1, verbs::IBV_QPT_RC, 4096, access);
  Endpoint b = make_endpoint(h3, verbs::IBV_QPT_RC, 4096, access);
  RcParams prm;
  prm.mtu = verbs::IBV_MTU_1024;
  connect(a, b, prm);
  At post([&] { REQUIRE(h1.post_send(*a.qp, write_wr(a, b, 0, 3000, 1)) == 0); });
  Watch w;
  h3.set_send_observer(&w);
  fire_at(h1, 1 * kUs, &post);
  run_for(f, 50 * kUs);
  const auto wcs = a.poll_all();
  REQUIRE(wcs.size() == 1);
  CHECK(wcs[0].status == verbs::IBV_WC_SUCCESS);
  const CcQpCounters& dst = h3.cc_counters().at(b.qp->qpn());
  CHECK(dst.fecn_received == 3);
  CHECK(dst.cnp_sent == 2);
  CHECK(dst.becn_on_response == 1);
  REQUIRE(w.cnps.size() == 2);
  CHECK(decode_bth(w.cnps[0].data() + 8).dest_qp == a.qp->qpn());
  const CcQpCounters& src = h1.cc_counters().at(a.qp->qpn());
  CHECK(src.cnp_received == 2);
  CHECK(src.becn_received == 1);  // on the ACK
  CHECK(h1.cc_throttle()->ccti(a.qp->qpn()) == 12);
  // The ACK went back unmarked (port 1 is not in Credit_Mask), so h1 sent no CNP.
  CHECK(h1.cc_counters().at(a.qp->qpn()).cnp_sent == 0);
}

TEST_CASE("R42 (A10): the source's CCTI rises by CCTI_Increase per BECN up to CCTI_Limit and decays 1 per CCTI_Timer",
          "[compliance][R42][A10]") {
  // 10 marked 2 KiB UD packets from h2: 10 CNPs, CCTI_Increase 5, CCT limit 31: the index reaches
  // 31 and stops there. With CCTI_Timer 10 (10.24 us) it then falls by 1 per 10.24 us back to 0:
  // 31 expiries, and then no timer runs.
  FabricOptions o = mark_everything_to_h3(1, 5);
  o.congestion_control.ca.ccti_timer = 10;
  o.congestion_control.cct = linear_cct(31, 3, 1);
  Fabric& f = build_fabric(kThreeHosts, o);
  Hca& h2 = *f.hca(2);
  Hca& h3 = *f.hca(3);
  const Qpn q3 = h3.create_ud_qp(0x42);
  const Qpn q2 = h2.create_ud_qp(0x42);
  At send([&] {
    for (int i = 0; i < 10; ++i) h2.post_ud_send(q2, h3.lid(), q3, 0x42, 2048, true);
  });
  fire_at(h3, 1 * kUs, &send);
  run_for(f, 400 * kUs);
  const CcThrottle::State* s = h2.cc_throttle()->state(q2);
  REQUIRE(s != nullptr);
  CHECK(s->becns == 10);
  CHECK(s->max_ccti == 31);
  CHECK(s->ccti == 0);
  // The 10 packets (66 edges each) leave within 1.7 us and every CNP is back before the first
  // expiry (10.24 us after the first BECN): 5, 10, .., 30, 31, 31, 31, 31, then 31 decrements to
  // 0, the last 31 x 10.24 us = 317 us after the first BECN.
  CHECK(s->timer_decrements == 31);
  CHECK(s->timer_at == kTimeNever);
}

TEST_CASE("A10: injection honours the CCT entry exactly: next start = end + (Tp >> shift) x multiplier",
          "[compliance][R42][A10]") {
  // Three pairs of hosts back to back (h1->h2, h3->h4, h5->h6), 4x EDR (2.56 ns edges), 2 m (4
  // edges). Each sender runs at a fixed CCTI (CCTI_Min; no BECN ever arrives) whose CCT entry is
  // 0:1, 2:3 and 3:5. A 2048-byte UD SEND is 2082 bytes, 66 edges (Tp). So consecutive starts
  // are 66 + 66, 66 + (66 >> 2) x 3 = 66 + 48, and 66 + (66 >> 3) x 5 = 66 + 40 edges apart.
  Fabric& f = build_fabric(
      "defaults: {link: {speed: EDR, width: 4x, length: 2m}, hca: {buffer_credits: 256}}\n"
      "nodes: [{name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca}, {name: h4, type: hca},"
      " {name: h5, type: hca}, {name: h6, type: hca}]\n"
      "cables: [{from: h1/1, to: h2/1}, {from: h3/1, to: h4/1}, {from: h5/1, to: h6/1}]\n",
      no_training());
  const std::uint64_t expected_gap[3] = {132, 114, 106};
  Poster post[3];
  Recorder rec[3];
  for (int k = 0; k < 3; ++k) {
    Hca& src = *f.hca(2 * k);
    Hca& dst = *f.hca(2 * k + 1);
    CaCongestionConfig c;
    for (auto& e : c.sl) e = {0, 1, 0, static_cast<std::uint8_t>(k + 1)};
    c.cct.ccti_limit = 3;
    c.cct.entries = {{0, 0}, {0, 1}, {2, 3}, {3, 5}};
    // Programmed the way the SM does: CACongestionSetting and CongestionControlTable MADs.
    CaCongestionConfig applied;
    std::uint64_t tid = 1;
    CongestionControlSettings s;
    s.ca = c.sl[0];
    s.cct = c.cct;
    for (const Mad& m : ca_cc_mads(ca_cc_plan(s), &tid)) REQUIRE(decode_cc_mad(ca_cc_agent(m, applied)).header.status == 0);
    src.set_congestion_control(applied);
    aim(post[k], src, dst, 2048, 6);
    src.set_send_observer(&rec[k]);
    fire_at(src, 1 * kUs, &post[k]);
  }
  run_for(f, 20 * kUs);
  for (int k = 0; k < 3; ++k) {
    REQUIRE(rec[k].injected.size() == 6);
    CHECK(rec[k].injected[0] == 391 * 2'560'000ull);  // the first edge at or after 1 us
    for (std::size_t i = 1; i < 6; ++i) CHECK(rec[k].injected[i] - rec[k].injected[i - 1] == expected_gap[k] * 2'560'000ull);
  }
}

TEST_CASE("A10: the fabric programs every node through CC MADs: CongestionInfo, SwitchCongestionSetting, "
          "SwitchPortCongestionSetting, CACongestionSetting, CongestionControlTable",
          "[compliance][R42][A10]") {
  FabricOptions o = cc_options(9, 2, 3);
  o.congestion_control.marking_rate = 5;
  o.congestion_control.port_overrides.push_back({0, 3, std::uint8_t{14}, std::nullopt, std::nullopt, std::nullopt});
  o.congestion_control.ca.ccti_timer = 77;
  o.congestion_control.cct = linear_cct(100, 2, 4);  // two CCT blocks
  Fabric& f = build_fabric(kThreeHosts, o);
  // sw1: SwitchCongestionSetting + one SwitchPortCongestionSetting block; each of 3 HCAs:
  // CACongestionSetting + 2 CCT blocks.
  CHECK(f.cc_mads_applied() == 2 + 3 * 3);
  // What a Get now reads back from each agent is what the scenario asked for.
  SwitchCongestionConfig sw = f.switch_at(0)->congestion_config();
  const CcMad r = decode_cc_mad(switch_cc_agent(encode_cc_mad(make_cc_mad(IB_MAD_METHOD_GET, IB_MAD_ATTR_SW_CONG_SETTING, 0, {})), sw, 4));
  const SwitchCongestionSetting got = decode_switch_congestion_setting(r.data.data());
  CHECK(got.threshold == 9);
  CHECK(got.packet_size == 2);
  CHECK(got.marking_rate == 5);
  // Victim_Mask: the ports facing HCAs (1, 2, 3), not port 4.
  CHECK(got.victim_mask.test(1));
  CHECK(got.victim_mask.test(3));
  CHECK_FALSE(got.victim_mask.test(4));
  CHECK(f.switch_at(0)->congestion_detector()->params(3).threshold == 14);
  CHECK(f.switch_at(0)->congestion_detector()->params(2).threshold == 9);
  CaCongestionConfig ca = f.hca(1)->cc_throttle()->config();
  CHECK(ca.sl[5].ccti_timer == 77);
  CHECK(ca.sl[5].ccti_increase == 3);
  CHECK(ca.cct.ccti_limit == 100);
  CHECK(ca.cct.at(100) == CctEntry{2, 400});
  const CcMad info = decode_cc_mad(ca_cc_agent(encode_cc_mad(make_cc_mad(IB_MAD_METHOD_GET, IB_MAD_ATTR_CONG_INFO, 0, {})), ca));
  CHECK(decode_congestion_info(info.data.data()).control_table_cap == kCaControlTableCap);
}

namespace {
// h1 and h2 on sw1, whose port 3 goes to sw2; h3 (hot) and h4 on sw2. h1, h2 and h4 all flood h3:
// sw2's port to h3 is the root of the congestion; sw1's port 3 backs up behind it, out of credits
// (sw2's input from sw1 holds packets that wait for h3): a victim.
const char* kTwoSwitches =
    "defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: sw2, type: switch, ports: 4}, {name: h1, type: hca},"
    " {name: h2, type: hca}, {name: h3, type: hca}, {name: h4, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: sw1/3, to: sw2/3},"
    " {from: h3/1, to: sw2/1}, {from: h4/1, to: sw2/2}]\n";

CongestionDetector::PortStats flood_h3(CongestionControlSettings::Ports victim_mask) {
  FabricOptions o = cc_options(15, 1, 0);  // CCTI_Increase 0: the sources never slow down
  o.congestion_control.victim = victim_mask;
  Fabric& f = build_fabric(kTwoSwitches, o);
  Hca& h3 = *f.hca(4);
  const Qpn q3 = h3.create_ud_qp(0x42);
  static Poster post[3];
  int k = 0;
  for (std::size_t n : {2u, 3u, 5u}) {
    aim(post[k], *f.hca(n), h3, 2048, 60);
    post[k].dst = q3;
    fire_at(*f.hca(n), 1 * kUs, &post[k]);
    ++k;
  }
  run_for(f, 60 * kUs);
  return f.switch_at(0)->congestion_detector()->stats(3);
}
}  // namespace

TEST_CASE("R42 (A10): a port congested for want of credits (a victim) marks nothing unless Victim_Mask names it",
          "[compliance][R42][A10]") {
  const CongestionDetector::PortStats s = flood_h3(CongestionControlSettings::Ports::kNone);
  INFO("sw1 port 3: root " << s.congested_root << ", victim " << s.congested_victim << ", marked " << s.fecn_marked);
  CHECK(s.congested_victim > 50);             // most of its queue built while out of credits
  CHECK(s.fecn_marked == s.congested_root);   // Marking_Rate 0: every root arrival, no victim one
}

TEST_CASE("R42 (A10): a victim port named in Victim_Mask marks as a root does", "[compliance][R42][A10]") {
  const CongestionDetector::PortStats s = flood_h3(CongestionControlSettings::Ports::kAll);
  INFO("sw1 port 3: root " << s.congested_root << ", victim " << s.congested_victim << ", marked " << s.fecn_marked);
  CHECK(s.congested_victim > 50);
  CHECK(s.fecn_marked == s.congested_root + s.congested_victim);
}
