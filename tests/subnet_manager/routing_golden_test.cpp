// LIDs and LFTs of ibfsim's subnet manager algorithms against every golden OpenSM 3.3 run
// (tests/subnet_manager/golden, README.md there): every LID range of every run, and every LFT
// entry of every minhop, updn and dor run. A failure names the run and counts the mismatches.
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>

#include "sim/subnet_manager/routing/dfsssp.h"
#include "sim/subnet_manager/routing/dnup.h"
#include "sim/subnet_manager/routing/sssp.h"
#include "sim/subnet_manager/routing/dor.h"
#include "sim/subnet_manager/routing/ftree.h"
#include "sim/subnet_manager/routing/lash.h"
#include "sim/subnet_manager/routing/minhop.h"
#include "sim/subnet_manager/routing/nue.h"
#include "sim/subnet_manager/routing/updn.h"
#include "tests/subnet_manager/golden_runs.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

// The number of runs per engine, from the golden README's table of topologies and runs.
std::size_t runs_in_readme(const std::string& engine) {
  if (engine == "minhop") return 21;
  if (engine == "updn") return 11;
  if (engine == "dor") return 5;
  if (engine == "ftree") return 8;
  if (engine == "dnup") return 6;
  if (engine == "sssp") return 8;
  if (engine == "dfsssp") return 7;
  if (engine == "lash") return 7;
  if (engine == "nue") return 13;
  return 0;
}

void check_engine(const std::string& engine, RoutingTables (*route)(const SubnetGraph&, const GoldenRun&)) {
  const auto runs = golden_runs_of(engine);
  REQUIRE(runs.size() == runs_in_readme(engine));
  std::size_t total = 0, bad = 0;
  for (const GoldenRun& r : runs) {
    const SubnetGraph g = golden_subnet(r);
    const RoutingTables t = route(g, r);
    const LftComparison c = compare_lfts(g, t, r);
    INFO(r.name() << ": " << c.mismatches << " of " << c.golden_entries
                  << " OpenSM LFT entries differ (missing or extra entries count too); first: " << c.first_mismatch);
    CHECK(c.golden_entries > 0);
    CHECK(c.mismatches == 0);
    CHECK(t.lft_top == g.max_lid());
    total += c.golden_entries;
    bad += c.mismatches;
  }
  WARN(engine << ": " << total - bad << " of " << total << " golden LFT entries matched in " << runs.size() << " runs");
}

}  // namespace

TEST_CASE("LIDs match OpenSM's guid2lid in every golden run", "[subnet_manager][golden]") {
  const auto runs = golden_runs();
  REQUIRE(runs.size() == 86);
  std::size_t ports = 0;
  for (const GoldenRun& r : runs) {
    const SubnetGraph g = golden_subnet(r);
    const auto want = golden_guid2lid(r);
    std::size_t bad = 0, ours = 0;
    for (std::size_t n = 0; n < g.nodes.size(); ++n) {
      for (unsigned p = 0; p <= g.nodes[n].num_ports(); ++p) {
        const LidRange lids = g.nodes[n].ports[p].lids;
        if (!lids.assigned()) continue;
        ++ours;
        const auto it = want.find(g.port_guid({n, static_cast<PortNum>(p)}));
        if (it == want.end() || it->second != std::make_pair<unsigned, unsigned>(lids.first, lids.last)) ++bad;
      }
    }
    INFO(r.name() << ": " << bad << " of " << want.size() << " ports have other LIDs than OpenSM's; ibfsim gave "
                  << ours << " ports LIDs");
    CHECK(ours == want.size());
    CHECK(bad == 0);
    ports += want.size();
  }
  WARN("LIDs: " << ports << " port LID ranges compared in " << runs.size() << " runs");
}

TEST_CASE("The SM port gets the first aligned LID range and switches one LID each", "[subnet_manager]") {
  // leaf_spine_4x2x4 with LMC 2 and the SM on h7 (README, LID assignment, items 1 and 3): h7 takes
  // LIDs 4-7 (1-3 stay free: ranges are aligned), then h1 (port GUID ...01000002, the smallest
  // byte-reversed) 8-11.
  GoldenRun r;
  r.topology = "leaf_spine_4x2x4";
  r.sm_host = "h7";
  r.lmc = 2;
  const SubnetGraph g = golden_subnet(r);
  const auto lids = [&](const char* name, PortNum port) { return g.port({*g.find_node(name), port}).lids; };
  CHECK(lids("h7", 1).first == 4);
  CHECK(lids("h7", 1).last == 7);
  CHECK(lids("h1", 1).first == 8);
  CHECK(lids("h1", 1).last == 11);
  CHECK(lids("leaf1", 0).count() == 1);
  CHECK(lids("leaf1", 1).assigned() == false);
  SubnetGraph copy = g;
  CHECK_THROWS_WITH(assign_lids(copy, 8), "expected an LMC of 0..7, got 8");
}

TEST_CASE("minhop matches OpenSM on every LFT entry of every golden minhop run", "[subnet_manager][golden]") {
  check_engine("minhop", [](const SubnetGraph& g, const GoldenRun&) { return route_minhop(g); });
}

TEST_CASE("dor matches OpenSM on every LFT entry of every golden dor run", "[subnet_manager][golden]") {
  check_engine("dor", [](const SubnetGraph& g, const GoldenRun&) { return route_dor(g); });
}

TEST_CASE("updn matches OpenSM on every LFT entry of every golden updn run", "[subnet_manager][golden]") {
  check_engine("updn", [](const SubnetGraph& g, const GoldenRun& r) { return route_updn(g, r.roots); });
}

TEST_CASE("dnup matches OpenSM on every LFT entry of every golden dnup run", "[subnet_manager][golden]") {
  check_engine("dnup", [](const SubnetGraph& g, const GoldenRun&) { return route_dnup(g); });
}

TEST_CASE("sssp matches OpenSM on every LFT entry of every golden sssp run", "[subnet_manager][golden]") {
  check_engine("sssp", [](const SubnetGraph& g, const GoldenRun&) { return route_sssp(g); });
}

TEST_CASE("dfsssp's tables match OpenSM on every LFT entry of every golden dfsssp run", "[subnet_manager][golden]") {
  // OpenSM's dfsssp routes exactly as its sssp and then spreads the paths over VLs.
  check_engine("dfsssp", [](const SubnetGraph& g, const GoldenRun&) { return route_dfsssp(g); });
}

TEST_CASE("lash matches OpenSM on every LFT entry of every golden lash run", "[subnet_manager][golden]") {
  check_engine("lash", [](const SubnetGraph& g, const GoldenRun&) { return route_lash(g); });
}

TEST_CASE("nue matches OpenSM on every LFT entry of every golden nue run", "[subnet_manager][golden]") {
  check_engine("nue", [](const SubnetGraph& g, const GoldenRun& r) { return route_nue(g, NueOptions{r.nue_max_vls}); });
}

TEST_CASE("updn finds the same roots as OpenSM when none are named", "[subnet_manager][golden]") {
  std::size_t checked = 0;
  for (const GoldenRun& r : golden_runs_of("updn")) {
    if (!r.roots.empty()) continue;
    const SubnetGraph g = golden_subnet(r);
    std::set<Guid> ours, theirs;
    for (std::size_t n : updn_auto_roots(g)) ours.insert(g.nodes[n].node_guid);
    std::istringstream in(slurp(r.dir + "/opensm-updn-roots.dump"));
    for (std::string s; in >> s;) theirs.insert(std::stoull(s, nullptr, 16));
    INFO(r.name());
    CHECK(!theirs.empty());
    CHECK(ours == theirs);
    ++checked;
  }
  CHECK(checked == 2);  // leaf_spine_4x2x4 and fat_tree_4ary2 (README)
}

TEST_CASE("ftree matches OpenSM on every LFT entry of every golden ftree run", "[subnet_manager][golden]") {
  check_engine("ftree", [](const SubnetGraph& g, const GoldenRun& r) {
    std::string order;
    RoutingTables t = route_ftree(g, FtreeOptions{r.roots, r.compute_nodes}, &order);
    INFO(r.name() << ": ftree notes: " << (t.notes.empty() ? "none" : t.notes[0]));
    CHECK(t.notes.empty());
    // The order in which ftree routed the HCAs, as OpenSM wrote it.
    CHECK(order == slurp(r.dir + "/opensm-ftree-ca-order.dump"));
    return t;
  });
}

TEST_CASE("ftree falls back to minhop where OpenSM's does: a host on a spine", "[subnet_manager][golden]") {
  // irregular has h7 on spine2 (golden README: ftree is not run there for that reason).
  GoldenRun r;
  r.topology = "irregular";
  r.sm_host = "h1";
  const SubnetGraph g = golden_subnet(r);
  const RoutingTables t = route_ftree(g);
  REQUIRE(t.notes.size() == 1);
  CHECK_THAT(t.notes[0], Catch::Contains("falling back to minhop"));
  CHECK(t.lft == route_minhop(g).lft);
}

TEST_CASE("ibfsim's default GUIDs are the golden net files' GUIDs, port GUIDs all distinct", "[subnet_manager][golden]") {
  // The golden topology.net files were written from topology.yaml and had their HCA GUIDs moved to
  // 0x0002c90301000000 + index + 1 (golden README, 'The net files'); ibfsim's defaults now give
  // exactly these, so an exported generator fabric runs unchanged under OpenSM.
  namespace fs = std::filesystem;
  std::size_t topologies = 0;
  for (const auto& dir : fs::directory_iterator(golden_root())) {
    if (!fs::exists(dir.path() / "topology.yaml")) continue;
    const Topology yaml = load_topology_file((dir.path() / "topology.yaml").string());
    const Topology net = load_topology_file((dir.path() / "topology.net").string());
    INFO(dir.path().filename().string());
    REQUIRE(yaml.nodes.size() == net.nodes.size());
    std::set<Guid> port_guids;
    for (std::size_t i = 0; i < yaml.nodes.size(); ++i) {
      CHECK(yaml.nodes[i].name == net.nodes[i].name);
      CHECK(yaml.nodes[i].guid == net.nodes[i].guid);
      const TopoNode& n = yaml.nodes[i];
      for (unsigned p = n.type == NodeType::kSwitch ? 0 : 1; p <= (n.type == NodeType::kSwitch ? 0 : n.num_ports); ++p)
        CHECK(port_guids.insert(port_guid_of(n, p)).second);
    }
    ++topologies;
  }
  CHECK(topologies == 10);
}
