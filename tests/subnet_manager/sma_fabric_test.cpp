// The SMAs in a running fabric: directed-route SMPs through switch management ports, the SMA's
// latency on the simulated clock, Sets that reprogram the switch, and traps. The fabrics use the
// static LIDs (no SM runs); a test SmpReceiver on h1 plays the SM.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/notice.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const char* kOneSwitch =
    "defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3}]\n";

const char* kTwoSwitches =
    "defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: sw2, type: switch, ports: 4},\n"
    "        {name: h1, type: hca}, {name: h2, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1}, {from: sw1/4, to: sw2/3}, {from: h2/1, to: sw2/2}]\n";

struct Received {
  Smp smp;
  Time at;
  Lid slid;
};

// Stands in for an SM on h1: records what the SMA hands it.
struct TestSm : SmpReceiver {
  std::vector<Received> got;
  void on_smp(const Smp& smp, PortNum, Lid slid) override { got.push_back({smp, ScheduledModule::now(), slid}); }
};

// Sends one SMP from h1's SMA when its action runs.
struct SmpSender {
  HcaSma* sma = nullptr;
  Smp smp;
  Lid dlid = kLidPermissive;
  void fire() { sma->send_from_sm(smp, 1, dlid); }
};

FabricOptions no_training() {
  FabricOptions o;
  o.link.training_delay = false;
  return o;
}

}  // namespace

TEST_CASE("a directed-route NodeInfo Get is answered by the switch after the SMA latency, to the edge") {
  Fabric& f = build_fabric(kOneSwitch, no_training());
  TestSm sm;
  f.hca_sma(1)->attach_sm(&sm, 1, SmInfo{});
  LinkPort& h1 = f.hca(1)->port(1);
  const SymbolClock& clk = h1.clock();
  const std::uint64_t c0 = clk.cycle_at_or_after(1 * kUs);
  SmpSender send;
  send.sma = f.hca_sma(1);
  send.smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 0x1234, {1});
  fire_at(*f.hca(1), clk.time_of(c0), &send);
  run_for(f, 5 * kUs);

  REQUIRE(sm.got.size() == 1);
  const Smp& r = sm.got[0].smp;
  CHECK(r.method == IB_MAD_METHOD_GET_RESP);
  CHECK(r.direction);
  CHECK(r.status == 0);
  CHECK(r.transaction_id == 0x1234);
  CHECK(r.hop_pointer == 0);
  CHECK(r.return_path[1] == 1);  // it entered sw1 on port 1
  const NodeInfo ni = decode_node_info(r.data.data());
  CHECK(ni.node_type == IB_NODE_TYPE_SWITCH);
  CHECK(ni.num_ports == 4);
  CHECK(ni.node_guid == f.topology().nodes[0].guid);
  CHECK(ni.local_port_num == 1);
  // Timeline on the 4x EDR link (a 290-byte SMP takes s edges, the cable prop edges): h1 starts
  // at c0, the tail is at sw1 at c0 + prop + s; sw1's SMA answers 1 us later, on the first edge
  // from then, and the answer's tail is at h1 prop + s edges after that.
  const std::uint64_t s = h1.symbols_for(290), prop = h1.prop_cycles();
  CHECK(s == 10);  // 290 bytes + 2 delimiters in 32-byte edges (4 lanes x 8 bytes)
  const Time at_switch = clk.time_of(c0 + prop + s);
  const std::uint64_t c1 = clk.cycle_at_or_after(at_switch + 1 * kUs);
  CHECK(sm.got[0].at == clk.time_of(c1 + prop + s));
  CHECK(f.switch_sma(0)->stats().processed == 1);
  CHECK(f.ledger().management_created_count() == 2);
  CHECK(f.ledger().management_delivered_count() == 2);
  CHECK(f.ledger().created_count() == 0);  // the workload's figures do not count SMPs
}

TEST_CASE("directed-route SMPs cross switches through their management ports, and a bad path is dropped") {
  Fabric& f = build_fabric(kTwoSwitches, no_training());
  TestSm sm;
  f.hca_sma(2)->attach_sm(&sm, 1, SmInfo{});
  SmpSender good, bad;
  good.sma = bad.sma = f.hca_sma(2);
  // h1 -> sw1 (in 1, out 4) -> sw2 (in 3, out 2) -> h2.
  good.smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0, 1, {1, 4, 2});
  bad.smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 2, {1, 9});  // sw1 has 4 ports
  fire_at(*f.hca(2), 1 * kUs, &good);
  fire_at(*f.hca(2), 1 * kUs, &bad);
  run_for(f, 20 * kUs);
  REQUIRE(sm.got.size() == 1);
  const Smp& r = sm.got[0].smp;
  CHECK(r.transaction_id == 1);
  CHECK(r.hop_count == 3);
  CHECK(r.return_path[1] == 1);
  CHECK(r.return_path[2] == 3);
  CHECK(r.return_path[3] == 1);  // h2's port
  const PortInfo pi = decode_port_info(r.data.data());
  CHECK(pi.local_port_num == 1);
  CHECK(pi.lid == f.hca(3)->lid());
  CHECK(pi.port_state == IB_LINK_ACTIVE);
  CHECK(pi.port_physical_state == IB_PORT_PHYS_STATE_LINKUP);
  CHECK(pi.link_width_active == IB_LINK_WIDTH_ACTIVE_4X);
  CHECK(pi.link_speed_ext_active == IB_LINK_SPEED_EXT_ACTIVE_25);
  // Each switch passed the request out and the answer back; sw1 dropped the bad path.
  CHECK(f.switch_sma(0)->stats().forwarded == 2);
  CHECK(f.switch_sma(1)->stats().forwarded == 2);
  CHECK(f.switch_sma(0)->stats().discarded == 1);
  CHECK(f.hca_sma(3)->stats().processed == 1);
}

TEST_CASE("a SubnSet of an LFT block reprograms the switch's forwarding") {
  Fabric& f = build_fabric(kOneSwitch, no_training());
  Switch& sw = *f.switch_at(0);
  const Lid h2 = f.hca(2)->lid();
  REQUIRE(sw.lft().lookup(h2) == 2);
  TestSm sm;
  f.hca_sma(1)->attach_sm(&sm, 1, SmInfo{});
  // Block 0 with h2's LID sent to port 3 (h3), everything else as it is.
  LinearForwardingTableBlock b;
  for (Lid lid = 0; lid < kLftBlockEntries; ++lid) b.ports[lid] = sw.lft().lookup(lid);
  b.ports[h2] = 3;
  SmpSender set;
  set.sma = f.hca_sma(1);
  set.smp = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_LIN_FWD_TBL, 0, 5, {1});
  set.smp.data = encode_linear_forwarding_table(b);
  fire_at(*f.hca(1), 1 * kUs, &set);
  Poster post;
  aim(post, *f.hca(1), *f.hca(2), 256);
  fire_at(*f.hca(1), 5 * kUs, &post);
  run_for(f, 10 * kUs);
  REQUIRE(sm.got.size() == 1);
  CHECK(sm.got[0].smp.status == 0);
  CHECK(sm.got[0].at < 5 * kUs);
  CHECK(sw.lft().lookup(h2) == 3);
  // The packet for h2 went to h3, which refuses it.
  CHECK(f.ledger().dropped_count(DropReason::kWrongDlid) == 1);
  CHECK(f.ledger().delivered_count() == 0);
}

TEST_CASE("a switch whose port goes down sends trap 128 to its SM until the SM represses it") {
  FabricOptions o = no_training();
  Fabric& f = build_fabric(kOneSwitch, o);
  TestSm sm;
  f.hca_sma(1)->attach_sm(&sm, 1, SmInfo{});
  // Tell sw1 where its SM is (PortInfo of port 0: its own LID stays as it is).
  SmpSender set;
  set.sma = f.hca_sma(1);
  set.smp = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 0, 9, {1});
  PortInfo p0;
  p0.lid = f.switch_at(0)->lid();
  p0.master_sm_lid = f.hca(1)->lid();
  set.smp.data = encode_port_info(p0);
  fire_at(*f.hca(1), 1 * kUs, &set);
  f.schedule_faults({LinkFault{10 * kUs, 3, 1, false}});  // h3's cable
  run_for(f, 215 * kUs);
  // The Set's answer, then the trap at 10 us + 1 us of SMA time + the wire, repeated every 100 us.
  REQUIRE(sm.got.size() == 4);
  for (std::size_t i = 1; i < 4; ++i) {
    const Smp& t = sm.got[i].smp;
    CHECK(t.method == IB_MAD_METHOD_TRAP);
    CHECK(t.mgmt_class == IB_MCLASS_SUBN_LID);
    CHECK(sm.got[i].slid == f.switch_at(0)->lid());
    const Notice n = decode_notice(t.data.data());
    CHECK(n.trap_number_or_device == kTrapLinkStateChange);
    CHECK(n.issuer_lid == f.switch_at(0)->lid());
  }
  // Each trap leaves sw1 on the first edge of port 1's clock at or after 10 us + 1 us (+ 100 us
  // per repeat) and arrives prop + s edges later.
  const LinkPort& out = f.switch_at(0)->port(1);
  const SymbolClock& clk = out.clock();
  for (std::size_t i = 1; i < 4; ++i) {
    const Time sent = 11 * kUs + (i - 1) * 100 * kUs;
    CHECK(sm.got[i].at == clk.time_of(clk.cycle_at_or_after(sent) + out.prop_cycles() + out.symbols_for(290)));
  }
  CHECK(f.switch_sma(0)->state().switch_info.port_state_change);
  CHECK(f.switch_sma(0)->trap_outstanding());
}


TEST_CASE("Sets of PortInfo, SLtoVL and VLArbitration reprogram the switch and HCA ports they name") {
  Fabric& f = build_fabric(kOneSwitch, no_training());
  Switch& sw = *f.switch_at(0);
  Hca& h2 = *f.hca(2);
  TestSm sm;
  f.hca_sma(1)->attach_sm(&sm, 1, SmInfo{});
  std::vector<SmpSender> sets(5);
  for (auto& s : sets) s.sma = f.hca_sma(1);
  // sw1 port 2: NeighborMTU 1024, HOQLife 10, VLHighLimit 7 (PortState no change).
  PortInfo pi = decode_port_info(encode_port_info(f.switch_sma(0)->state().ports[2].info).data());
  pi.neighbor_mtu = IB_MTU_LEN_1024;
  pi.hoq_life = 10;
  pi.vl_high_limit = 7;
  pi.port_state = IB_LINK_NO_CHANGE;
  pi.port_physical_state = 0;
  sets[0].smp = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 2, 1, {1});
  sets[0].smp.data = encode_port_info(pi);
  // sw1, input 1 to output 2: SL 3 -> VL 6.
  SlToVlMappingTable t;
  for (unsigned sl = 0; sl < 16; ++sl) t.vl_of_sl[sl] = static_cast<std::uint8_t>(sl % 8);
  t.vl_of_sl[3] = 6;
  sets[1].smp = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE,
                                encode_sl_to_vl_attribute_modifier({1, 2, false, false}), 2, {1});
  sets[1].smp.data = encode_sl_to_vl_mapping_table(t);
  // sw1 output 2, low-priority entries 0-31: VL 1 weight 5, VL 0 weight 9.
  VlArbitrationTableBlock b;
  b.entries[0] = {1, 5};
  b.entries[1] = {0, 9};
  sets[2].smp = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_VL_ARBITRATION, (1u << 16) | 2, 3, {1});
  sets[2].smp.data = encode_vl_arbitration_table(b);
  // h2's port: SL 3 -> VL 2, and the same VL arbitration block.
  t.vl_of_sl[3] = 2;
  sets[3].smp = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_SLVL_TABLE, 0, 4, {1, 2});
  sets[3].smp.data = encode_sl_to_vl_mapping_table(t);
  sets[4].smp = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_VL_ARBITRATION, 1u << 16, 5, {1, 2});
  sets[4].smp.data = encode_vl_arbitration_table(b);
  for (std::size_t i = 0; i < sets.size(); ++i) fire_at(*f.hca(1), (1 + i) * kUs, &sets[i]);
  run_for(f, 20 * kUs);
  REQUIRE(sm.got.size() == 5);
  for (const auto& g : sm.got) CHECK(g.smp.status == 0);
  CHECK(sw.neighbor_mtu(2) == 1024);
  CHECK(sw.neighbor_mtu(3) == 4096);
  CHECK(sw.hoq_life(2) == lifetime_from_code(10));
  CHECK(sw.sl_to_vl_table(1, 2).vl(3) == 6);
  CHECK(sw.sl_to_vl_table(2, 1).vl(3) == 3);  // other pairs keep SL s -> VL s mod 8
  const VlArbConfig& arb = sw.vl_arbitration(2);
  REQUIRE(arb.low.size() == 2);  // trailing weight-0 entries are no entries
  CHECK(arb.low[0].vl == 1);
  CHECK(arb.low[0].weight == 5);
  CHECK(arb.low[1].weight == 9);
  CHECK(arb.high.empty());
  CHECK(arb.high_limit == 7);
  CHECK(h2.sl_to_vl_table(1).vl(3) == 2);
  CHECK(h2.sl_to_vl(1, 3) == 2);
  REQUIRE(h2.vl_arbitration(1).low.size() == 2);
  CHECK(h2.vl_arbitration(1).low[1].vl == 0);
}
