// PFC deadlock on a ring of 6 L3 switches (the topology of topologies/ring_6.yaml as an Ethernet
// fabric): every host WRITEs to the host two switches clockwise, on shortest paths, so the cables
// clockwise form a cycle of channel dependencies. With a small buffer and priority 3 lossless,
// every switch's clockwise egress is paused by the next switch, whose ingress holds frames that
// wait for its own paused clockwise egress: the run's detector (fabric/pfc_deadlock_detector.h)
// stops it and names the cycle. Without the flow that closes the cycle (h6's) every byte arrives.
// The static check (fabric/ethernet_deadlock_check.h) finds the same cycle in the routes.
#include <catch2/catch.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sim/fabric/ethernet_deadlock_check.h"
#include "sim/fabric/ethernet_topology.h"
#include "sim/fabric/pfc_deadlock_detector.h"
#include "sim/fabric/roce_hca_fabric.h"
#include "sim/fabric/topology_generators.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

namespace {

constexpr std::uint32_t kMessage = 64 * 4096;
constexpr unsigned kLossless = 3;
constexpr Time kWindow = 20 * kUs;

EthernetFabricPlan ring_plan() { return ethernet_plan_from_topology(generate_mesh({6}, 1, true, TopologyDefaults{}), 1); }

struct Ring {
  // `senders`: how many hosts (h1 ..) WRITE to the host two switches clockwise.
  explicit Ring(unsigned senders) {
    init_time_resolution();
    RoceHcaFabricOptions o;
    o.switch_buffer_bytes = 128 * 1024;
    o.configure_hca = [](std::size_t, HcaConfig& c) { c.roce_ports[0].pcp = kLossless; };
    o.pfc.lossless = 1u << kLossless;
    o.pfc.xoff_bytes = 8000;
    o.pfc.xon_bytes = 4200;
    fabric = std::make_unique<RoceHcaFabric>(ring_plan(), o, pool, ledger);
    detector = std::make_unique<PfcDeadlockDetector>(*fabric, o.pfc.lossless, kWindow);
    for (unsigned i = 0; i < senders; ++i) {
      Hca& src = fabric->hca("h" + std::to_string(i + 1));
      Hca& dst = fabric->hca("h" + std::to_string((i + 2) % 6 + 1));
      as.push_back(make_endpoint(src, IBV_QPT_RC, kMessage, IBV_ACCESS_LOCAL_WRITE));
      bs.push_back(make_endpoint(dst, IBV_QPT_RC, kMessage, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
      connect(as.back(), bs.back());
    }
    for (std::size_t i = 0; i < as.size(); ++i)
      REQUIRE(as[i].hca->post_send(*as[i].qp, write_wr(as[i], bs[i], 0, kMessage, i)) == 0);
    CalendarProcess::run_for(5 * kMs);
  }
  PacketPool pool;
  PacketLedger ledger;
  std::unique_ptr<RoceHcaFabric> fabric;
  std::unique_ptr<PfcDeadlockDetector> detector;
  std::vector<Endpoint> as, bs;
};

}  // namespace

TEST_CASE("PFC deadlock: WRITEs two switches clockwise around a ring of 6 deadlock and the detector names the cycle",
          "[ethernet][pfc][deadlock]") {
  Ring r(6);
  PfcDeadlock d;
  try {
    ScheduledModule::rethrow_failure();
    FAIL("the run ended without a deadlock");
  } catch (const PfcDeadlockError& e) {
    d = e.deadlock();
  }
  CHECK(d.priority == kLossless);
  // Each switch's clockwise egress (port 2), paused by the next switch; the cycle starts where the
  // depth-first search met it.
  REQUIRE(d.ports.size() == 6);
  const std::vector<std::string> ring{"sw0/2", "sw1/2", "sw2/2", "sw3/2", "sw4/2", "sw5/2"};
  std::size_t first = 0;
  while (first < 6 && ring[first] != d.ports[0]) ++first;
  REQUIRE(first < 6);
  for (std::size_t i = 0; i < 6; ++i) CHECK(d.ports[i] == ring[(first + i) % 6]);
  CHECK(d.text() == "PFC deadlock at " + format_duration(d.detected) + ": priority 3: cycle of 6 paused ports: " +
                        d.ports[0] + " -> " + d.ports[1] + " -> " + d.ports[2] + " -> " + d.ports[3] + " -> " +
                        d.ports[4] + " -> " + d.ports[5] + " -> " + d.ports[0]);
  // At the check that found it, every egress of the cycle had been paused a whole window, frames waiting.
  for (unsigned s = 0; s < 6; ++s) {
    EthernetSwitch& sw = *r.fabric->switch_at(s);
    CHECK(sw.port(2).paused(kLossless));
    CHECK(d.detected - sw.port(2).pfc().paused_since(kLossless) >= kWindow);
    CHECK(sw.queued_frames(2, kLossless) > 0);
    CHECK(sw.stats().dropped_total() == 0);
  }
  // The first pause arms a check a window later; the check 21.646 us into the run is the first to
  // find every egress of the cycle paused a whole window (the run's figure: a change of timing shows).
  CHECK(d.detected == 21'646'000'000);
  CHECK(r.detector->checks() == 1);
  // No WRITE completed: every sender's message is stuck in the ring.
  for (Endpoint& e : r.as) CHECK(e.poll_all().empty());
}

TEST_CASE("PFC deadlock: without h6's flow the cycle never closes and every WRITE completes", "[ethernet][pfc][deadlock]") {
  Ring r(5);
  ScheduledModule::rethrow_failure();
  for (std::size_t i = 0; i < r.as.size(); ++i) {
    const auto wc = r.as[i].poll_all();
    REQUIRE(wc.size() == 1);
    CHECK(wc[0].status == IBV_WC_SUCCESS);
  }
  CHECK(r.ledger.dropped_total() == 0);
  CHECK(r.ledger.delivered_count() == r.ledger.created_count());
  CHECK(r.detector->checks() > 0);  // pauses happened, and were checked
}

TEST_CASE("Ethernet deadlock check: the ring's shortest paths have a cycle, a leaf-spine's none",
          "[ethernet][deadlock]") {
  const EthernetFabricPlan ring = ring_plan();
  const EthernetDeadlockReport r = check_ethernet_deadlock(ring, {3});
  // The ring: every cable's two directions are channels (12) plus each host's two (12); the two
  // rings of dependencies (clockwise and counter-clockwise, paths of two switch hops) are cycles.
  CHECK(format_ethernet_deadlock_report(ring, r) ==
        "deadlock check: priority 3, 24 channels, 36 dependencies\n"
        "priority 3: cycle of 6 channels: sw0/2 -> sw1/3, sw1/2 -> sw2/3, sw2/2 -> sw3/3, sw3/2 -> sw4/3, "
        "sw4/2 -> sw5/3, sw5/2 -> sw0/3\n"
        "deadlock check: cycles in 1 priority (12 channels in cycles): deadlock possible\n");
  CHECK(r.channels_in_cycles == 12);
  const EthernetFabricPlan tree = ethernet_leaf_spine(3, 1, 2, 1);
  const EthernetDeadlockReport t = check_ethernet_deadlock(tree, {3});
  // A leaf-spine of 3 leaves (2 hosts each) and one spine: 6 host cables and 3 leaf-spine cables,
  // both directions; up then down, never a cycle.
  CHECK(format_ethernet_deadlock_report(tree, t) ==
        "deadlock check: priority 3, 18 channels, 24 dependencies\n"
        "deadlock check: no cycle in any priority: deadlock-free\n");
  CHECK(check_ethernet_deadlock(ring, {}).cycles.empty());  // no lossless priority: nothing to deadlock
}

// A ring of 4: the host opposite is two hops either way, an ECMP group of both ports; every next
// hop is a possible path, so the dependencies are those of both directions' two-hop paths.
TEST_CASE("Ethernet deadlock check: every ECMP next hop is a path (a ring of 4)", "[ethernet][deadlock]") {
  const EthernetFabricPlan ring4 = ethernet_plan_from_topology(generate_mesh({4}, 1, true, TopologyDefaults{}), 1);
  const NextHops* hops = ring4.nodes[0].routes.lookup(ring4.nodes[ring4.find("h3")].ip);
  REQUIRE(hops != nullptr);
  CHECK(*hops == NextHops{2, 3});
  const EthernetDeadlockReport r = check_ethernet_deadlock(ring4, {3});
  // 16 channels (4 ring cables and 4 host cables, both ways). Dependencies: each host's channel on
  // both ring ports (8); each ring channel on the next switch's host channel and on its next ring
  // channel, the second hop of a path to the opposite host (16). Only those ECMP paths make the
  // cycles (paths to a neighbour are one switch hop): one per direction, 8 channels.
  CHECK(format_ethernet_deadlock_report(ring4, r) ==
        "deadlock check: priority 3, 16 channels, 24 dependencies\n"
        "priority 3: cycle of 4 channels: sw0/2 -> sw1/3, sw1/2 -> sw2/3, sw2/2 -> sw3/3, sw3/2 -> sw0/3\n"
        "deadlock check: cycles in 1 priority (8 channels in cycles): deadlock possible\n");
}
