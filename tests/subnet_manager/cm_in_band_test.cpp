// CM in band: h2 resolves its path to h3 with a PathRecord query to the SA (the SM runs on h1),
// then connects to a listener on h3 with REQ, REP, RTU; the set-up time is computed by hand from
// the MADs' time on the wire, the SA's and the CM agents' processing times and the path.
#include <catch2/catch.hpp>

#include <systemc>

#include "sim/subnet_manager/cm/cm_agent.h"
#include "sim/subnet_manager/sa/path_record.h"
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

struct Record {
  std::vector<std::pair<Time, CmEvent>> events;
  std::vector<std::pair<Time, CmQpStep>> steps;
  void operator()(CmEvent e, const std::vector<CmQpTransition>& qp) {
    if (e != CmEvent::kNone) events.emplace_back(ScheduledModule::now(), e);
    for (const CmQpTransition& t : qp) steps.emplace_back(ScheduledModule::now(), t.step);
  }
};

struct Start {
  CmAgent* agent = nullptr;
  Gid dgid{};
  Record* record = nullptr;
  Time path_answered = 0;
  void fire() {
    PathRecord want;
    want.dgid = dgid;
    want.num_path = 1;
    agent->sa().query(make_sa_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PATH_RECORD, IB_PR_COMPMASK_DGID,
                                      encode_path_record(want), 0),
                      [this](const SaMad* a) {
                        path_answered = ScheduledModule::now();
                        REQUIRE(a);
                        const PathRecord p = decode_path_record(a->data.data());
                        CmReq req;
                        req.service_id = 0x1234;
                        req.remote_cm_response_timeout = 20;
                        req.retry_count = 7;
                        req.rnr_retry_count = 7;
                        req.p_key = p.p_key;
                        req.path_mtu = p.mtu;
                        req.primary.local_lid = p.slid;
                        req.primary.remote_lid = p.dlid;
                        req.primary.local_gid = p.sgid;
                        req.primary.remote_gid = p.dgid;
                        req.primary.packet_rate = p.rate;
                        req.primary.sl = p.sl;
                        req.primary.local_ack_timeout = 14;
                        CmLocal local{0, 0x20, 0x22, 0x2000, 16, 16, 18, 3};
                        Record* r = record;
                        agent->connect(p.dlid, local, req, cm_timeout(p.packet_life_time),
                                       [r](CmEvent e, const std::vector<CmQpTransition>& qp) { (*r)(e, qp); });
                      });
  }
};

}  // namespace

TEST_CASE("CM in band: PathRecord then REQ, REP, RTU, and the set-up time by hand", "[subnet_manager][cm]") {
  FabricOptions o;
  SubnetManagerSettings sm;
  sm.host = 1;
  sm.config.sa_latency = 2 * kUs;
  o.subnet_manager = sm;
  Fabric& f = build_fabric(kTopology, o);
  static Time done = 0;
  f.subnet_manager()->set_on_sweep_done([](const SweepRecord& r) {
    done = r.done;
    sc_core::sc_pause();
  });
  sc_core::sc_start(to_sc_time(100 * kMs));
  ScheduledModule::rethrow_failure();
  REQUIRE(f.subnet_manager()->configured());

  CmAgentConfig c;
  c.processing = 1 * kUs;
  CmAgent active(*f.hca_sma(2), 1, c), passive(*f.hca_sma(3), 1, c);
  static Record ra, rp;
  passive.listen(0x1234, CmLocal{0, 0x30, 0x33, 0x3000, 16, 16, 18, 3}, cm_timeout(18),
                 [](CmEvent e, const std::vector<CmQpTransition>& qp) { rp(e, qp); });
  static Start s;
  s.agent = &active;
  s.dgid = gid_of(kDefaultGidPrefix, f.hca_sma(3)->state().ports[1].guid);
  s.record = &ra;
  const Time t = (done + 10 * kUs) / kUs * kUs;
  fire_at(*f.hca(2), t, &s);
  run_for(f, 100 * kUs);
  // Every MAD is a 290-byte GMP: 73 ns on a 4x QDR link; any HCA to another through sw1 (1 m
  // cables, 100 ns switch latency) takes 186 ns from its first edge to its tail
  // (sa_in_band_test.cpp has the steps).
  //   t + 2372 ns    the PathRecord answer is in at h2 (186 + 2000 SA + 186)
  //   t + 3372       h2's CM has built the REQ: it leaves
  //   t + 3558       the REQ is in at h3; + 1000 processing: h3's QP to RTR, the REP leaves at t + 4558
  //   t + 4744       the REP is in at h2; + 1000: h2's QP to RTR and RTS, established, the RTU leaves
  //   t + 5744       (h2's set-up time: 5744 ns from the query, 3372 from the REQ's building)
  //   t + 5930       the RTU is in at h3; + 1000: h3's QP to RTS, established at t + 6930
  CHECK(s.path_answered == t + 2372 * kNs);
  REQUIRE(ra.events.size() == 1);
  CHECK(ra.events[0] == std::make_pair(t + 5744 * kNs, CmEvent::kEstablished));
  REQUIRE(ra.steps.size() == 2);
  CHECK(ra.steps[0] == std::make_pair(t + 5744 * kNs, CmQpStep::kToRtr));
  CHECK(ra.steps[1] == std::make_pair(t + 5744 * kNs, CmQpStep::kToRts));
  REQUIRE(rp.steps.size() == 2);
  CHECK(rp.steps[0] == std::make_pair(t + 4558 * kNs, CmQpStep::kToRtr));
  CHECK(rp.steps[1] == std::make_pair(t + 6930 * kNs, CmQpStep::kToRts));
  REQUIRE(rp.events.size() == 1);
  CHECK(rp.events[0] == std::make_pair(t + 6930 * kNs, CmEvent::kEstablished));
  CHECK(active.mads_sent() == 2);      // REQ, RTU
  CHECK(passive.mads_sent() == 1);     // REP
  CHECK(active.mads_received() == 1);  // REP
  CHECK(passive.mads_received() == 2);
}
