// The in-band subnet manager on small fabrics: the exact SMP count of a bring-up, the LIDs in
// OpenSM's order, traffic once the ports are Active, the outstanding-SMP bound, and timeouts with
// retries when the answers are late or never come.
#include <catch2/catch.hpp>

#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const char* kOneSwitch =
    "defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}, {name: h3, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}, {from: h3/1, to: sw1/3}]\n";

FabricOptions with_sm(SubnetManagerConfig c = {}) {
  FabricOptions o;
  o.subnet_manager = SubnetManagerSettings{1, 1, c};  // on h1
  return o;
}

// Runs until the SM's first sweep is over (or `limit`).
void run_until_configured(Fabric& f, Time limit = 100 * kMs) {
  f.subnet_manager()->set_on_sweep_done([](const SweepRecord&) { sc_core::sc_pause(); });
  sc_core::sc_start(to_sc_time(limit));
  ScheduledModule::rethrow_failure();
}

}  // namespace

TEST_CASE("bring-up of one switch and three hosts takes 35 SMPs and gives OpenSM's LIDs") {
  Fabric& f = build_fabric(kOneSwitch, with_sm());
  run_until_configured(f);
  SubnetManager& sm = *f.subnet_manager();
  REQUIRE(sm.configured());
  const SweepRecord& r = sm.sweeps().front();
  // Discovery: NodeInfo, NodeDescription and PortInfo of h1 (3); NodeInfo of sw1 through port 1,
  // its NodeDescription, SwitchInfo and PortInfo of ports 0-4 (8); NodeInfo of h2 and h3 through
  // ports 2 and 3 (port 4 is down), with their NodeDescription and PortInfo (6) = 17.
  // LIDs: PortInfo of h1 (first), sw1 port 0, h2, h3 (4); sw1's ports 1-3 already have what the SM
  // wants (MTU 4096, 8 VLs, HOQLife 20), so no Set. LFTs: SwitchInfo (LinearFDBTop 4) and block 0 (2).
  // Armed: the six cabled ports (6); Active: the same six (6). 17 + 4 + 2 + 6 + 6 = 35.
  CHECK(r.requests == 35);
  CHECK(r.smps_sent == 35);
  CHECK(r.retries == 0);
  CHECK(r.errors == 0);
  CHECK(r.lft_blocks == 1);
  CHECK(r.nodes == 4);
  CHECK(r.switches == 1);
  CHECK(r.links == 3);
  CHECK(r.trigger == "port up");
  CHECK(r.done > r.started);
  // LIDs: the SM's port first (h1 = 1), then port GUID table order, i.e. by the GUID's last byte:
  // sw1 ...00000001, h2 port ...01000004, h3 port ...01000005 (h1's is ...01000003).
  CHECK(f.hca(1)->lid() == 1);
  CHECK(f.switch_at(0)->lid() == 2);
  CHECK(f.hca(2)->lid() == 3);
  CHECK(f.hca(3)->lid() == 4);
  CHECK(f.switch_at(0)->lft().top() == 4);
  CHECK(f.switch_at(0)->lft().lookup(2) == 0);
  CHECK(f.switch_at(0)->lft().lookup(4) == 3);
  CHECK(f.switch_sma(0)->state().ports[0].info.master_sm_lid == 1);
  CHECK(f.hca_sma(1)->state().sm_info->sm_state == IB_SMINFO_STATE_MASTER);
  for (unsigned p = 1; p <= 3; ++p) CHECK(f.switch_at(0)->port(static_cast<PortNum>(p)).state() == PortState::kActive);
  CHECK(f.switch_at(0)->port(4).state() == PortState::kDown);
  // Every SMP went over the wire and was taken by an agent: none lost, none left.
  CHECK(f.ledger().management_created_count() == f.ledger().management_delivered_count());
  CHECK(f.ledger().created_count() == 0);
}

TEST_CASE("after bring-up data flows between hosts on the LIDs the SM gave them") {
  Fabric& f = build_fabric(kOneSwitch, with_sm());
  run_until_configured(f);
  REQUIRE(f.subnet_manager()->configured());
  Poster post;
  aim(post, *f.hca(2), *f.hca(3), 512, 3);
  Recorder rec;
  f.hca(3)->set_delivery_observer(&rec);
  fire_at(*f.hca(2), ScheduledModule::now() + 1 * kUs, &post);
  sc_core::sc_start(to_sc_time(20 * kUs));
  ScheduledModule::rethrow_failure();
  f.check_invariants();
  CHECK(rec.delivered.size() == 3);
}

TEST_CASE("at most max_wire_smps requests are outstanding") {
  // With one SMP at a time the sweep takes longer than with four, and sends the same SMPs.
  SubnetManagerConfig one;
  one.max_wire_smps = 1;
  Fabric& f = build_fabric(kOneSwitch, with_sm(one));
  run_until_configured(f);
  const SweepRecord& r = f.subnet_manager()->sweeps().front();
  CHECK(r.requests == 35);
  // One at a time, each request waits for the previous answer: at least 35 SMA latencies of 1 us.
  CHECK(r.done - r.started > 35 * kUs);
}

TEST_CASE("SMPs lost to a full SMA queue are sent again after the SMP timeout and the sweep completes") {
  SubnetManagerConfig c;
  c.smp_timeout = 20 * kUs;
  c.smp_retries = 3;
  FabricOptions o = with_sm(c);
  // sw1's SMA keeps one SMP waiting besides the one it serves: once sw1's NodeInfo is answered the
  // SM sends four requests for sw1 back to back; the first is served, the second waits, the third
  // and fourth find the queue full and are lost. Their retries 20 us later find room.
  SmaTiming small;
  small.queue_depth = 1;
  o.sma_timing_by_node.push_back({0, small});
  Fabric& f = build_fabric(kOneSwitch, o);
  run_until_configured(f);
  REQUIRE(f.subnet_manager()->configured());
  const SweepRecord& r = f.subnet_manager()->sweeps().front();
  CHECK(r.errors == 0);
  CHECK(r.requests == 35);
  CHECK(f.switch_sma(0)->stats().overflowed > 0);
  CHECK(r.retries >= f.switch_sma(0)->stats().overflowed);
  CHECK(r.smps_sent == r.requests + r.retries);
  CHECK(f.hca(3)->lid() == 4);
  for (unsigned p = 1; p <= 3; ++p) CHECK(f.switch_at(0)->port(static_cast<PortNum>(p)).state() == PortState::kActive);
}

TEST_CASE("an SMP never answered is given up after its retries and the sweep goes on without it") {
  SubnetManagerConfig c;
  c.smp_timeout = 10 * kUs;
  c.smp_retries = 2;
  FabricOptions o = with_sm(c);
  SmaTiming slow;
  slow.process = 1 * kMs;  // sw1 answers long after the SM gave up
  o.sma_timing_by_node.push_back({0, slow});
  Fabric& f = build_fabric(kOneSwitch, o);
  run_until_configured(f);
  const SweepRecord& r = f.subnet_manager()->sweeps().front();
  // h1's NodeInfo, NodeDescription and PortInfo are answered by h1 itself; sw1's NodeInfo is
  // sent three times and given up: the SM's port then leads nowhere, and nothing is configured.
  CHECK(r.requests == 4);
  CHECK(r.smps_sent == 6);
  CHECK(r.errors == 1);
  CHECK(r.nodes == 1);
  CHECK(f.hca(1)->lid() == 0);
  CHECK(r.done - r.started >= 30 * kUs);
}

TEST_CASE("a periodic sweep rediscovers the fabric and, with nothing changed, programs nothing") {
  SubnetManagerConfig c;
  c.sweep_interval = 50 * kUs;
  Fabric& f = build_fabric(kOneSwitch, with_sm(c));
  f.subnet_manager()->set_on_sweep_done([](const SweepRecord& r) {
    if (r.trigger == "periodic") sc_core::sc_pause();
  });
  sc_core::sc_start(to_sc_time(10 * kMs));
  ScheduledModule::rethrow_failure();
  const auto& sweeps = f.subnet_manager()->sweeps();
  REQUIRE(sweeps.size() == 2);
  CHECK(sweeps[1].trigger == "periodic");
  CHECK(sweeps[1].started == sweeps[0].done + 50 * kUs);
  // The 17 discovery SMPs of the first sweep (see above), and no Set: LIDs, LFTs and states are
  // as the first sweep left them, and sw1's PortStateChange was cleared by its SwitchInfo Set.
  CHECK(sweeps[1].requests == 17);
  CHECK(sweeps[1].lft_blocks == 0);
  CHECK(f.hca(3)->lid() == 4);
}

TEST_CASE("the SM sets OperationalVLs to the smaller VLCap of each link's two ends") {
  // sw1 has buffers for 4 data VLs, the HCAs for 8: every link runs VL0-3 after bring-up.
  Fabric& f = build_fabric(
      "defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
      "nodes: [{name: sw1, type: switch, ports: 4, vls: 4}, {name: h1, type: hca}, {name: h2, type: hca}]\n"
      "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}]\n",
      with_sm());
  REQUIRE(f.hca(1)->port(1).op_vls() == 8);
  run_until_configured(f);
  REQUIRE(f.subnet_manager()->configured());
  for (std::size_t h : {1u, 2u}) {
    CHECK(f.hca(h)->port(1).op_vls() == 4);
    CHECK(f.hca(h)->port(1).vl_cap() == 8);
    CHECK(f.hca(h)->port(1).state() == PortState::kActive);
  }
  CHECK(f.switch_at(0)->port(1).op_vls() == 4);
  // Traffic on VL 3 flows; the HCA's buffers of VLs 4-7 are gone.
  CHECK(f.hca(2)->port(1).rx_buffer(4).capacity() == 0);
  Poster post;
  aim(post, *f.hca(1), *f.hca(2), 256, 2);
  Recorder rec;
  f.hca(2)->set_delivery_observer(&rec);
  fire_at(*f.hca(1), ScheduledModule::now() + 1 * kUs, &post);
  sc_core::sc_start(to_sc_time(10 * kUs));
  ScheduledModule::rethrow_failure();
  f.check_invariants();
  CHECK(rec.delivered.size() == 2);
}
