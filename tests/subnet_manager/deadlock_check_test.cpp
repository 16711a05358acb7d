// The channel dependency graph check, on a hand-made ring whose cycle is known, and on golden
// fabrics: minhop deadlocks on a ring and a torus, updn and dfsssp do not.
#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/subnet_manager/routing/deadlock_check.h"
#include "sim/subnet_manager/routing/dfsssp.h"
#include "sim/subnet_manager/routing/lash.h"
#include "sim/subnet_manager/routing/nue.h"
#include "sim/subnet_manager/sm/lid_assignment.h"
#include "sim/subnet_manager/routing/minhop.h"
#include "sim/subnet_manager/routing/updn.h"
#include "tests/subnet_manager/golden_runs.h"
#include "tests/subnet_manager/routing_check.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

// A ring of `n` switches s0..s(n-1), each with one HCA hK on port 1; port 2 of sK goes to port 3
// of s(K+1). The SM is on h0.
SubnetGraph ring(unsigned n) {
  SubnetGraph g;
  for (unsigned k = 0; k < n; ++k) {
    SubnetNode s;
    s.kind = SubnetNodeKind::kSwitch;
    s.node_guid = 0x100 + k;
    s.description = "s" + std::to_string(k);
    s.ports.resize(4);
    s.ports[0].guid = s.node_guid;
    g.nodes.push_back(s);
  }
  for (unsigned k = 0; k < n; ++k) {
    SubnetNode h;
    h.node_guid = 0x200 + 2 * k;
    h.description = "h" + std::to_string(k);
    h.ports.resize(2);
    h.ports[1].guid = h.node_guid + 1;
    h.ports[1].peer = SubnetPortRef{k, 1};
    g.nodes[k].ports[1].peer = SubnetPortRef{n + k, 1};
    g.nodes.push_back(h);
    g.nodes[k].ports[2].peer = SubnetPortRef{(k + 1) % n, 3};
    g.nodes[(k + 1) % n].ports[3].peer = SubnetPortRef{k, 2};
  }
  g.sm_port = SubnetPortRef{n, 1};
  check_subnet_graph(g);
  assign_lids(g, 0);
  return g;
}

// Every switch sends everything that is not its own or its HCA's clockwise (port 2).
RoutingTables clockwise(const SubnetGraph& g, unsigned n) {
  RoutingTables t = empty_routing_tables(g);
  for (unsigned k = 0; k < n; ++k) {
    for (Lid lid = 1; lid <= t.lft_top; ++lid) t.lft[k][lid] = 2;
    t.lft[k][g.nodes[k].ports[0].lids.first] = 0;
    t.lft[k][g.nodes[n + k].ports[1].lids.first] = 1;
  }
  return t;
}

}  // namespace

TEST_CASE("Clockwise routing on a ring of 4 has the cycle of the 4 clockwise channels", "[subnet_manager]") {
  const SubnetGraph g = ring(4);
  const RoutingTables t = clockwise(g, 4);
  REQUIRE(follow_every_route(g, t).unreached == 0);
  const DeadlockReport r = check_deadlock(g, t);
  CHECK(r.vls == std::vector<unsigned>{0});
  // Channels used: 4 clockwise switch links, 4 HCA->switch, 4 switch->HCA (nothing goes
  // counter-clockwise).
  CHECK(r.channels == 12);
  // Dependencies by hand: each HCA's injection channel into sK depends on sK->s(K+1) (3 far
  // destinations) and sK->hK is never entered from hK, so 4; each clockwise channel sK->s(K+1)
  // depends on s(K+1)->h(K+1) and on s(K+1)->s(K+2): 8. Total 12.
  CHECK(r.dependencies == 12);
  REQUIRE(r.cycles.size() == 1);
  CHECK(r.cycles[0].channels.size() == 4);
  CHECK(r.channels_in_cycles == 4);
  const std::string text = format_deadlock_report(g, r);
  CHECK_THAT(text, Catch::Contains("VL 0: cycle of 4 channels: s0/2 -> s1/3, s1/2 -> s2/3, s2/2 -> s3/3, s3/2 -> s0/3"));
  CHECK_THAT(text, Catch::EndsWith("deadlock check: cycles in 1 VL (4 channels in cycles): deadlock possible\n"));
}

TEST_CASE("Routing on a line of switches has no dependency cycle", "[subnet_manager]") {
  // A ring of 4 with the s3-s0 cable cut is a line; minhop then has a single path per pair.
  SubnetGraph g = ring(4);
  g.nodes[3].ports[2].peer.reset();
  g.nodes[0].ports[3].peer.reset();
  assign_lids(g, 0);
  const RoutingTables t = route_minhop(g);
  REQUIRE(follow_every_route(g, t).unreached == 0);
  const DeadlockReport r = check_deadlock(g, t);
  CHECK(r.deadlock_free());
  // 14 channels: 4 HCA->switch, 4 switch->HCA, both directions of 3 links. Dependencies by hand:
  // injection h0->s0 and h3->s3 go on one way, h1->s1 and h2->s2 both ways (6); s0->s1 and s3->s2
  // go on to an HCA or further (2 each), s1->s2 and s2->s1 likewise (2 each), s2->s3 and s1->s0
  // only to their HCA (1 each): 10. Total 16.
  CHECK(format_deadlock_report(g, r) ==
        "deadlock check: VL 0, 14 channels, 16 dependencies\ndeadlock check: no cycle in any VL: deadlock-free\n");
}

TEST_CASE("minhop deadlocks on ring_6 and torus_4x4, updn and dfsssp do not", "[subnet_manager][golden]") {
  for (const char* topo : {"ring_6", "torus_4x4"}) {
    GoldenRun run;
    run.topology = topo;
    run.sm_host = "h1";
    const SubnetGraph g = golden_subnet(run);
    INFO(topo);

    const RoutingTables minhop = route_minhop(g);
    const DeadlockReport m = check_deadlock(g, minhop);
    CHECK(m.cycles.size() == 1);
    CHECK(m.cycles[0].vl == 0);
    CHECK(m.cycles[0].channels.size() >= 4);  // a cycle in a ring or torus spans at least 4 switches

    const RoutingTables updn = route_updn(g, {g.nodes[*g.find_node(std::string(topo) == "ring_6" ? "sw0" : "sw0_0")].node_guid});
    CHECK(check_deadlock(g, updn).deadlock_free());

    const RoutingTables dfsssp = route_dfsssp(g);
    const ReachResult reach = follow_every_route(g, dfsssp);
    INFO("unreached: " << reach.unreached << " first " << reach.first_failure);
    CHECK(reach.unreached == 0);
    REQUIRE(dfsssp.sl);
    const DeadlockReport d = check_deadlock(g, dfsssp);
    CHECK(d.deadlock_free());
    CHECK(dfsssp.sl->vls_needed >= 2);  // it needed more than one layer to break minhop-like cycles
    // The spare VLs are shared out among the layers (as OpenSM balances them): all 8 in use.
    CHECK(d.vls.size() == 8);

    // The SLs are what removes the cycles: the same paths all on VL 0 have one.
    RoutingTables one_vl = dfsssp;
    one_vl.sl->sl_to_vl.fill(0);
    CHECK_FALSE(check_deadlock(g, one_vl).deadlock_free());
  }
}

TEST_CASE("lash and nue are deadlock-free on ring_6 and torus_4x4 with their SLs", "[subnet_manager][golden]") {
  for (const char* topo : {"ring_6", "torus_4x4"}) {
    GoldenRun run;
    run.topology = topo;
    run.sm_host = "h1";
    const SubnetGraph g = golden_subnet(run);
    INFO(topo);
    const RoutingTables lash = route_lash(g);
    REQUIRE(lash.sl);
    CHECK(lash.sl->vls_needed >= 2);
    CHECK(follow_every_route(g, lash).unreached == 0);
    CHECK(check_deadlock(g, lash).deadlock_free());
    RoutingTables lash_one_vl = lash;
    lash_one_vl.sl->sl_to_vl.fill(0);
    CHECK_FALSE(check_deadlock(g, lash_one_vl).deadlock_free());
    // nue's paths to the HCAs are deadlock-free even in one layer (it takes detours instead), and
    // in eight; its routes to switch LIDs (spanning trees, no data traffic) are not part of that.
    for (unsigned vls : {1u, 0u}) {
      const RoutingTables nue = route_nue(g, NueOptions{vls});
      CHECK(follow_every_route(g, nue).unreached == 0);
      CHECK(check_deadlock(g, nue, false).deadlock_free());
      CHECK(nue.sl.has_value() == (vls == 0));
    }
  }
}

TEST_CASE("lash falls back to minhop, as OpenSM does, when the fabric has too few VLs for its layers",
          "[subnet_manager]") {
  GoldenRun run;
  run.topology = "ring_6";
  run.sm_host = "h1";
  SubnetGraph g = golden_subnet(run);
  for (SubnetNode& n : g.nodes)
    for (SubnetPort& p : n.ports) p.data_vls = 2;  // ring_6 needs 3 layers
  const RoutingTables t = route_lash(g);
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0] ==
        "lash: the paths need more layers than the 2 data VLs every switch link has; routed with minhop instead, as "
        "OpenSM does");
  CHECK(!t.sl);
  CHECK(t.lft == route_minhop(g).lft);
}

TEST_CASE("dfsssp falls back to minhop, as OpenSM does, when the fabric has too few VLs for its layers",
          "[subnet_manager]") {
  GoldenRun run;
  run.topology = "ring_6";
  run.sm_host = "h1";
  SubnetGraph g = golden_subnet(run);
  for (SubnetNode& n : g.nodes)
    for (SubnetPort& p : n.ports) p.data_vls = 1;
  const RoutingTables t = route_dfsssp(g);
  REQUIRE(t.notes.size() == 1);
  CHECK(t.notes[0] == "dfsssp: the paths need 2 VLs, more than every switch link has; routed with minhop instead, as "
                      "OpenSM does");
  CHECK(!t.sl);
  CHECK(t.lft == route_minhop(g).lft);
}

TEST_CASE("Every engine's routes reach every LID on the golden fabrics", "[subnet_manager][golden]") {
  for (const GoldenRun& r : golden_runs()) {
    if (r.engine != "minhop" || r.lmc != 0 || r.run != "minhop") continue;
    const SubnetGraph g = golden_subnet(r);
    const ReachResult m = follow_every_route(g, route_minhop(g));
    const ReachResult d = follow_every_route(g, route_dfsssp(g));
    INFO(r.topology << ": minhop unreached " << m.unreached << ", dfsssp unreached " << d.unreached << " first "
                    << d.first_failure);
    CHECK(m.unreached == 0);
    CHECK(d.unreached == 0);
    CHECK(d.pairs == m.pairs);
    CHECK(d.pairs > 0);
  }
}
