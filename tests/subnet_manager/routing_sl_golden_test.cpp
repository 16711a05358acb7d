// The SLs of paths and the SL-to-VL tables of the engines that assign SLs (lash, dfsssp, nue), against
// every golden OpenSM run that recorded them (tests/subnet_manager/golden, README.md there):
// path-sls.txt holds the SL OpenSM's SA answers each (SLID, DLID) path record with (or, for dfsssp,
// the range it picks from at random), opensm-sl2vl.dump the tables its QoS manager programmed.
#include <catch2/catch.hpp>

#include <set>

#include "sim/subnet_manager/routing/dfsssp.h"
#include "sim/subnet_manager/routing/lash.h"
#include "sim/subnet_manager/routing/nue.h"
#include "tests/subnet_manager/golden_runs.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

struct SlCounts {
  std::size_t runs = 0, pairs = 0, sl2vl_entries = 0;
};

SlCounts check_sls(const std::string& engine, RoutingTables (*route)(const SubnetGraph&, const GoldenRun&),
                   std::size_t want_runs) {
  SlCounts n;
  for (const GoldenRun& r : golden_runs_of(engine)) {
    if (!std::filesystem::exists(r.dir + "/path-sls.txt")) continue;
    const SubnetGraph g = golden_subnet(r);
    const RoutingTables t = route(g, r);
    INFO(r.name() << ": notes: " << (t.notes.empty() ? "none" : t.notes[0]));
    REQUIRE(t.sl.has_value());
    const auto golden = golden_path_sls(r);
    const auto by_lid = ports_by_lid(g);
    std::size_t bad = 0;
    std::string first;
    for (const auto& [pair, want] : golden) {
      const auto [lo, hi] = path_sl_range(g, t, by_lid.at(pair.first), static_cast<Lid>(pair.second), static_cast<Lid>(pair.first));
      if (lo != want.first || hi != want.second) {
        if (bad++ == 0)
          first = "SLID " + std::to_string(pair.first) + " DLID " + std::to_string(pair.second) + ": ibfsim " +
                  std::to_string(lo) + "-" + std::to_string(hi) + ", OpenSM " + std::to_string(want.first) + "-" +
                  std::to_string(want.second);
      }
    }
    INFO(bad << " of " << golden.size() << " path SLs differ; first: " << first);
    // Every pair, or (a large lash run) every pair whose source is a switch: all destinations each.
    std::set<unsigned> sources;
    for (const auto& kv : golden) sources.insert(kv.first.first);
    const std::size_t switches = g.switches().size();
    CHECK((sources.size() == by_lid.size() || (engine == "lash" && sources.size() == switches)));
    CHECK(golden.size() == sources.size() * (by_lid.size() - 1));
    CHECK(bad == 0);
    // Every SL-to-VL table OpenSM programmed (every port, every in/out pair) is the engine's.
    const auto rows = golden_sl2vl_rows(r);
    CHECK(!rows.empty());
    std::size_t bad_rows = 0;
    for (const auto& row : rows)
      for (unsigned sl = 0; sl < 16; ++sl) bad_rows += row[sl] != t.sl->sl_to_vl[sl];
    CHECK(bad_rows == 0);
    n.pairs += golden.size();
    n.sl2vl_entries += rows.size() * 16;
    ++n.runs;
  }
  CHECK(n.runs == want_runs);
  WARN(engine << ": " << n.pairs << " path SLs and " << n.sl2vl_entries << " SL-to-VL entries identical to OpenSM's in "
              << n.runs << " runs");
  return n;
}

}  // namespace

TEST_CASE("lash gives every path OpenSM's SL, and OpenSM's SL-to-VL tables", "[subnet_manager][golden]") {
  check_sls("lash", [](const SubnetGraph& g, const GoldenRun&) { return route_lash(g); }, 7);
}

TEST_CASE("dfsssp gives every path OpenSM's SLs, and OpenSM's SL-to-VL tables", "[subnet_manager][golden]") {
  check_sls("dfsssp", [](const SubnetGraph& g, const GoldenRun&) { return route_dfsssp(g); }, 7);
}

TEST_CASE("nue with several layers gives every path OpenSM's SL, and OpenSM's SL-to-VL tables",
          "[subnet_manager][golden]") {
  check_sls("nue", [](const SubnetGraph& g, const GoldenRun& r) { return route_nue(g, NueOptions{r.nue_max_vls}); }, 6);
}
