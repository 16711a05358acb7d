// The SA in band: the SM runs on h1 of h1 - sw1 - h2 (and h3), 4x QDR, 1 m cables, switch latency
// 100 ns; after its first sweep an SA client on another HCA sends requests on QP1 that cross the
// fabric as GMPs, the SM's SA answers each after its processing time, and multicast joins make the
// SM program the switch's MFT with SMPs.
#include <catch2/catch.hpp>

#include <systemc>

#include "sim/subnet_manager/sa/mc_member_record.h"
#include "sim/subnet_manager/sa/path_record.h"
#include "sim/subnet_manager/sa/sa_client.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const char* kTopology =
    "defaults: {link: {speed: QDR, width: 4x}, switch: {latency: 100ns}}\n"
    "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca},"
    " {name: h3, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1, length: 1m}, {from: h2/1, to: sw1/2, length: 1m},"
    " {from: h3/1, to: sw1/3, length: 1m}]\n";

// Builds the fabric with the SM on h1 and runs until its first sweep is done; returns when.
Time bring_up(Fabric*& f, Time sa_latency) {
  FabricOptions o;
  SubnetManagerSettings sm;
  sm.host = 1;
  sm.config.sa_latency = sa_latency;
  o.subnet_manager = sm;
  f = &build_fabric(kTopology, o);
  static Time done = 0;
  f->subnet_manager()->set_on_sweep_done([](const SweepRecord& r) {
    done = r.done;
    sc_core::sc_pause();
  });
  sc_core::sc_start(to_sc_time(100 * kMs));
  ScheduledModule::rethrow_failure();
  REQUIRE(f->subnet_manager()->configured());
  return done;
}

struct Query {
  SaClient* client = nullptr;
  SaMad request;
  Time answered = 0;
  std::optional<SaMad> answer;
  void fire() {
    client->query(request, [this](const SaMad* a) {
      answered = ScheduledModule::now();
      if (a) answer = *a;
    });
  }
};

}  // namespace

TEST_CASE("SA in band: a PathRecord query from h2 is answered in the time its GMPs and the SA take",
          "[subnet_manager][sa]") {
  Fabric* f = nullptr;
  const Time done = bring_up(f, 2 * kUs);
  SaClient client(*f->hca_sma(2), 1);
  static Query q;
  q.client = &client;
  PathRecord want;
  want.dgid = gid_of(kDefaultGidPrefix, f->hca_sma(1)->state().ports[1].guid);
  want.num_path = 1;
  q.request = make_sa_request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PATH_RECORD,
                              IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_NUMBPATH, encode_path_record(want), 0);
  // On a whole ns (QDR's 1 ns edge) well after the sweep, when every link is idle.
  const Time t = (done + 10 * kUs) / kUs * kUs;
  fire_at(*f->hca(2), t, &q);
  run_for(*f, 200 * kUs);
  // By hand (tests/scenarios/zero_load_latency_test.cpp has the rules): a GMP is a UD SEND Only
  // with the 256-byte MAD, LRH 8 + BTH 12 + DETH 8 + 256 + ICRC 4 + VCRC 2 = 290 bytes + 2
  // delimiters = 292 slots = 73 edges of 1 ns at 4x QDR. Cable 1 m = 5 edges.
  //   h2 -> sw1: starts at t; the LRH is in at sw1 after 5 + 3 edges, the tail after 5 + 73.
  //   sw1 -> h1: the first edge >= t + 8 + 100 whose end is >= t + 78 + 100: t + 108; the tail is
  //   at h1 at t + 108 + 5 + 73 = t + 186 ns.
  //   The SA answers 2 us later, t + 2186 ns; the answer takes the same 186 ns back:
  //   t + 2372 ns.
  REQUIRE(q.answer);
  CHECK(q.answered == t + 2372 * kNs);
  CHECK(q.answer->header.status == 0);
  CHECK(q.answer->header.method == IB_MAD_METHOD_GETTABLE_RESP);
  CHECK(q.answer->rmpp.data2 == 84);
  const PathRecord r = decode_path_record(q.answer->data.data());
  CHECK(r.dlid == f->hca(1)->lid());
  CHECK(r.slid == f->hca(2)->lid());
  CHECK(r.sgid == gid_of(kDefaultGidPrefix, f->hca_sma(2)->state().ports[1].guid));
  CHECK(r.mtu == IB_MTU_LEN_4096);
  CHECK(r.rate == 7);  // 4x QDR: 40 Gb/s
  CHECK(r.sl == 0);
  CHECK(r.p_key == 0xFFFF);
  CHECK(r.packet_life_time == 18);
  CHECK(client.stats().sent == 1);
  CHECK(client.stats().answered == 1);
  CHECK(f->subnet_manager()->sa_stats().requests == 1);
  CHECK(f->subnet_manager()->sa_stats().answered == 1);
}

TEST_CASE("SA in band: multicast joins program the switch's MFT with SMPs and a leave clears it",
          "[subnet_manager][sa]") {
  Fabric* f = nullptr;
  const Time done = bring_up(f, 2 * kUs);
  SaClient c2(*f->hca_sma(2), 1), c3(*f->hca_sma(3), 1);
  const std::uint64_t mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE |
                             IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY;
  McMemberRecord m;
  m.mgid = gid_of(0xFF12401BFFFF0000, 0x1234);
  m.q_key = 0x42;
  m.p_key = 0xFFFF;
  m.join_state = IB_MC_REC_STATE_FULL_MEMBER;
  static Query j2, j3, l2;
  m.port_gid = gid_of(kDefaultGidPrefix, f->hca_sma(2)->state().ports[1].guid);
  j2 = Query{&c2, make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, mask, encode_mc_member_record(m), 0)};
  l2 = Query{&c2, make_sa_request(IB_MAD_METHOD_DELETE, IB_MAD_ATTR_MCMEMBER_RECORD, mask, encode_mc_member_record(m), 0)};
  m.port_gid = gid_of(kDefaultGidPrefix, f->hca_sma(3)->state().ports[1].guid);
  j3 = Query{&c3, make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, mask, encode_mc_member_record(m), 0)};
  const Time t = (done + 10 * kUs) / kUs * kUs;
  fire_at(*f->hca(2), t, &j2);
  fire_at(*f->hca(3), t + 20 * kUs, &j3);
  run_for(*f, 40 * kUs);
  REQUIRE(j2.answer);
  REQUIRE(j3.answer);
  CHECK(j2.answer->header.status == 0);
  const McMemberRecord g = decode_mc_member_record(j3.answer->data.data());
  CHECK(g.mgid == m.mgid);
  CHECK(g.mlid == 0xC000);
  CHECK(g.join_state == IB_MC_REC_STATE_FULL_MEMBER);
  Switch& sw = *f->switch_at(0);
  REQUIRE(sw.mft().lookup(0xC000));
  CHECK(*sw.mft().lookup(0xC000) == std::vector<PortNum>{2, 3});
  CHECK(f->subnet_manager()->sa_stats().mft_sets == 2);  // one per join: block 0, position 0
  CHECK(f->subnet_manager()->sa_stats().mft_failed == 0);
  fire_at(*f->hca(2), t + 60 * kUs, &l2);
  run_for(*f, 40 * kUs);
  REQUIRE(l2.answer);
  CHECK(l2.answer->header.method == 0x95);
  CHECK(*sw.mft().lookup(0xC000) == std::vector<PortNum>{3});
  CHECK(f->subnet_manager()->sa().groups().size() == 1);
}

TEST_CASE("SA in band: with the SM on the switch, joins program that switch's own MFT", "[subnet_manager][sa]") {
  // The SM runs on sw1's management port 0: the MFT Sets of the SA are LID-routed SMPs to sw1's
  // own LID, which its SMA serves (1 us, sma.latency) and answers to the SM without a wire.
  FabricOptions o;
  SubnetManagerSettings sm;
  sm.host = 0;
  sm.port = 0;
  sm.config.sa_latency = 2 * kUs;
  o.subnet_manager = sm;
  Fabric& f = build_fabric(kTopology, o);
  static Time done = 0;
  f.subnet_manager()->set_on_sweep_done([](const SweepRecord& r) {
    if (done == 0) {
      done = r.done;
      sc_core::sc_pause();
    }
  });
  sc_core::sc_start(to_sc_time(100 * kMs));
  ScheduledModule::rethrow_failure();
  REQUIRE(f.subnet_manager()->configured());
  SaClient c2(*f.hca_sma(2), 1), c3(*f.hca_sma(3), 1);
  const std::uint64_t mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE |
                             IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY;
  McMemberRecord m;
  m.mgid = gid_of(0xFF12401BFFFF0000, 0x1234);
  m.q_key = 0x42;
  m.p_key = 0xFFFF;
  m.join_state = IB_MC_REC_STATE_FULL_MEMBER;
  static Query j2, j3;
  m.port_gid = gid_of(kDefaultGidPrefix, f.hca_sma(2)->state().ports[1].guid);
  j2 = Query{&c2, make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, mask, encode_mc_member_record(m), 0)};
  m.port_gid = gid_of(kDefaultGidPrefix, f.hca_sma(3)->state().ports[1].guid);
  j3 = Query{&c3, make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, mask, encode_mc_member_record(m), 0)};
  const Time t = (done + 10 * kUs) / kUs * kUs;
  fire_at(*f.hca(2), t, &j2);
  fire_at(*f.hca(3), t + 20 * kUs, &j3);
  run_for(f, 40 * kUs);
  REQUIRE(j2.answer);
  REQUIRE(j3.answer);
  CHECK(j2.answer->header.status == 0);
  CHECK(j3.answer->header.status == 0);
  Switch& sw = *f.switch_at(0);
  REQUIRE(sw.mft().lookup(0xC000));
  CHECK(*sw.mft().lookup(0xC000) == std::vector<PortNum>{2, 3});
  CHECK(f.subnet_manager()->sa_stats().mft_sets == 2);    // one per join, none resent
  CHECK(f.subnet_manager()->sa_stats().mft_failed == 0);  // each answered by sw1's SMA
}
