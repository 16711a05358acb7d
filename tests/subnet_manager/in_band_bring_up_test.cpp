// In-band bring-up of the golden fabrics (tests/subnet_manager/golden, README.md there): the SM
// runs on the golden run's host, discovers the simulated fabric by directed-route SMPs, and
// programs it; afterwards every port the SM found must hold exactly OpenSM's LIDs (guid2lid), every
// switch exactly OpenSM's LFT (opensm-lfts.dump), and every cabled port must be Active. What is
// compared is read from the modules themselves (Hca::lid, Switch::lft), i.e. what the SMAs
// programmed, not what the SM computed.
#include <catch2/catch.hpp>

#include <map>

#include "sim/fabric/fabric.h"
#include "sim/fabric/subnet_graph_from_topology.h"
#include "sim/fabric/topology_loader.h"
#include "tests/subnet_manager/golden_runs.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

struct BringUp {
  Fabric* fabric = nullptr;
  Time done = 0;
};

// Builds the run's fabric with the SM on its host and runs until the first sweep is over.
BringUp bring_up(const GoldenRun& r) {
  const Topology topo = load_topology_file(golden_root() + "/" + r.topology + "/topology.net");
  FabricOptions o;
  SubnetManagerSettings sm;
  sm.host = *topo.find_node(r.sm_host);
  if (topo.nodes[sm.host].type == NodeType::kSwitch) sm.port = 0;  // a managed switch's SM
  sm.config.sweep.lmc = r.lmc;
  sm.config.sweep.routing.engine = *parse_routing_engine(r.engine);
  sm.config.sweep.routing.roots = r.roots;
  sm.config.sweep.routing.compute_nodes = r.compute_nodes;
  o.subnet_manager = sm;
  BringUp b;
  b.fabric = new Fabric(topo, o);  // lives until the process ends, as SystemC modules must
  b.fabric->subnet_manager()->set_on_sweep_done([&b](const SweepRecord& rec) {
    b.done = rec.done;
    sc_core::sc_pause();
  });
  sc_core::sc_start(to_sc_time(100 * kMs));
  ScheduledModule::rethrow_failure();
  return b;
}

void check_against_golden(const std::string& topology, const std::string& run) {
  GoldenRun r;
  for (const GoldenRun& g : golden_runs())
    if (g.topology == topology && g.run == run) r = g;
  REQUIRE(r.topology == topology);
  BringUp b = bring_up(r);
  Fabric& f = *b.fabric;
  REQUIRE(f.subnet_manager()->configured());
  const SweepRecord& rec = f.subnet_manager()->sweeps().front();
  CHECK(rec.errors == 0);
  CHECK(rec.retries == 0);
  const Topology& topo = f.topology();

  // LIDs: port GUID -> range, as the modules hold them.
  std::map<Guid, std::pair<unsigned, unsigned>> got;
  for (std::size_t n = 0; n < topo.nodes.size(); ++n) {
    if (Hca* h = f.hca(n)) {
      for (unsigned p = 1; p <= h->num_ports(); ++p)
        if (h->lid(static_cast<PortNum>(p)) != 0)
          got[topology_port_guid(topo.nodes[n], p)] = {h->lid(static_cast<PortNum>(p)),
                                                       h->lid(static_cast<PortNum>(p)) + (1u << h->lmc(static_cast<PortNum>(p))) - 1};
    } else if (f.switch_at(n)->lid() != 0) {
      got[topo.nodes[n].guid] = {f.switch_at(n)->lid(), f.switch_at(n)->lid()};
    }
  }
  CHECK(got == golden_guid2lid(r));

  // LFTs: switch GUID -> LID -> port, every entry up to LinearFDBTop that routes somewhere.
  const auto golden = golden_lfts(r);
  std::size_t entries = 0;
  for (std::size_t n : topo.switches()) {
    Switch& sw = *f.switch_at(n);
    std::map<unsigned, unsigned> lft;
    for (unsigned lid = 0; lid <= sw.lft().top(); ++lid)
      if (sw.lft().lookup(static_cast<Lid>(lid)) != kNoRoute) lft[lid] = sw.lft().lookup(static_cast<Lid>(lid));
    INFO(topo.nodes[n].name);
    REQUIRE(golden.count(topo.nodes[n].guid) == 1);
    CHECK(lft == golden.at(topo.nodes[n].guid));
    entries += lft.size();
  }
  CHECK(entries > 0);
  // Every cabled port is Active.
  for (const TopoCable& c : topo.cables) {
    CHECK(f.port(c.node_a, c.port_a).state() == PortState::kActive);
    CHECK(f.port(c.node_b, c.port_b).state() == PortState::kActive);
  }
}

}  // namespace

TEST_CASE("in-band bring-up of leaf_spine_4x2x4 with minhop gives OpenSM's LIDs and LFTs", "[subnet_manager][golden]") {
  check_against_golden("leaf_spine_4x2x4", "minhop");
}

TEST_CASE("in-band bring-up of leaf_spine_4x2x4 with LMC 2 gives OpenSM's LIDs and LFTs", "[subnet_manager][golden]") {
  check_against_golden("leaf_spine_4x2x4", "minhop_lmc2");
}

TEST_CASE("in-band bring-up of leaf_spine_4x2x4 with the SM on h7 gives OpenSM's LIDs and LFTs", "[subnet_manager][golden]") {
  check_against_golden("leaf_spine_4x2x4", "minhop_sm_h7");
}

TEST_CASE("in-band bring-up of fat_tree_4ary3 with minhop gives OpenSM's LIDs and LFTs", "[subnet_manager][golden]") {
  check_against_golden("fat_tree_4ary3", "minhop");
}

TEST_CASE("in-band bring-up of irregular with the SM on h4 gives OpenSM's LIDs and LFTs", "[subnet_manager][golden]") {
  check_against_golden("irregular", "minhop_sm_h4");
}

TEST_CASE("in-band bring-up of torus_4x4 with dor gives OpenSM's LIDs and LFTs", "[subnet_manager][golden]") {
  check_against_golden("torus_4x4", "dor");
}

TEST_CASE("in-band bring-up of ring_6 with updn gives OpenSM's LIDs and LFTs", "[subnet_manager][golden]") {
  check_against_golden("ring_6", "updn");
}

TEST_CASE("in-band bring-up of fat_tree_4ary2 with ftree gives OpenSM's LIDs and LFTs", "[subnet_manager][golden]") {
  check_against_golden("fat_tree_4ary2", "ftree");
}

// The SM on a switch (its management port 0, as on a managed switch): OpenSM run the same way on
// ibsim (SIM_HOST names the switch) gives the switch's port 0 LID 1.
TEST_CASE("in-band bring-up of leaf_spine_4x2x4 with the SM on switch leaf2 gives OpenSM's LIDs and LFTs",
          "[subnet_manager][golden]") {
  check_against_golden("leaf_spine_4x2x4", "minhop_sm_leaf2");
}

TEST_CASE("in-band bring-up of leaf_spine_4x2x4 with the SM on switch spine1 and LMC 1 gives OpenSM's LIDs and LFTs",
          "[subnet_manager][golden]") {
  check_against_golden("leaf_spine_4x2x4", "minhop_lmc1_sm_spine1");
}

TEST_CASE("in-band bring-up of irregular with the SM on switch spine2 gives OpenSM's LIDs and LFTs",
          "[subnet_manager][golden]") {
  check_against_golden("irregular", "minhop_sm_spine2");
}

TEST_CASE("in-band bring-up of irregular with updn and the SM on switch leafB gives OpenSM's LIDs and LFTs",
          "[subnet_manager][golden]") {
  check_against_golden("irregular", "updn_sm_leafB");
}

TEST_CASE("in-band bring-up of leaf_spine_4x2x4 with ftree and a compute-node file gives OpenSM's LIDs and LFTs",
          "[subnet_manager][golden]") {
  check_against_golden("leaf_spine_4x2x4", "ftree_cn");
}

TEST_CASE("in-band bring-up of irregular with ftree, roots and compute nodes gives OpenSM's LIDs and LFTs",
          "[subnet_manager][golden]") {
  check_against_golden("irregular", "ftree_roots_cn");
}
