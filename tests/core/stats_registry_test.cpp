#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/core/stats_registry.h"

using namespace ibfsim;

namespace {

// A module's counters, as a module keeps them: plain fields.
struct Counters {
  std::uint64_t packets = 0;
  double busy = 0;
  std::uint32_t depth = 0;
};

}  // namespace

TEST_CASE("the registry reads each owner's counters through its getters when the snapshot is taken",
          "[core][stats_registry]") {
  StatsRegistry reg;
  auto ports = reg.add_kind<const Counters*>("ports", {"node", "port"});
  ports.counter("tx_packets", "packets", kPortsCsv | kResultsTop, [](const Counters* c) { return c->packets; })
      .figure("busy_fraction", "fraction", Merge::kSame, kPortsCsv, [](const Counters* c) { return c->busy; }, 6)
      .figure("max_depth", "blocks", Merge::kMax, kResultsTop, [](const Counters* c) { return c->depth; })
      .attribute("state", kPortsCsv, [](const Counters*) { return "Active"; });
  Counters a, b;
  ports.add(&a, kNoStatParent, "sw1", 1u);
  ports.add(&b, kNoStatParent, std::string("sw1"), std::uint8_t{2});
  a.packets = 7;  // counted after registration: the snapshot sees it
  b.busy = 0.5;
  b.depth = 9;

  const StatsSnapshot s = reg.snapshot();
  REQUIRE(s.kinds.size() == 1);
  const StatKindInfo& k = s.kinds[0];
  CHECK(k.keys == std::vector<std::string>{"node", "port"});
  REQUIRE(k.stats.size() == 4);
  CHECK(k.stats[0].name == "tx_packets");
  CHECK(k.stats[0].unit == "packets");
  CHECK(k.stats[0].merge == Merge::kSum);
  CHECK(k.stats[0].outputs == (kPortsCsv | kResultsTop));
  CHECK(k.stats[1].decimals == 6);
  CHECK(k.stats[2].merge == Merge::kMax);
  CHECK(k.stats[3].attribute);
  CHECK(k.stats[3].merge == Merge::kSame);
  REQUIRE(s.rows.size() == 2);
  CHECK(s.rows[0].keys == std::vector<StatValue>{std::string("sw1"), std::uint64_t{1}});
  CHECK(s.rows[1].keys[1] == StatValue{std::uint64_t{2}});
  CHECK(s.rows[0].values[0] == StatValue{std::uint64_t{7}});
  CHECK(s.rows[1].values[1] == StatValue{0.5});
  CHECK(s.rows[1].values[2] == StatValue{std::uint64_t{9}});  // any integer is a count
  CHECK(s.rows[1].values[3] == StatValue{std::string("Active")});

  b.packets = 3;  // a snapshot is plain data: later counts are for the next one
  CHECK(s.rows[1].values[0] == StatValue{std::uint64_t{0}});
  CHECK(reg.snapshot().rows[1].values[0] == StatValue{std::uint64_t{3}});
}

TEST_CASE("nested kinds hang their rows under a parent row, and kinds are extended by name", "[core][stats_registry]") {
  StatsRegistry reg;
  auto ports = reg.add_kind<int>("ports", {"port"});
  auto vls = reg.add_kind<std::pair<int, int>>("vls", {"vl"}, Nesting::kObjects, ports.index());
  vls.counter("stall", "ns", kPortVlsCsv, [](const std::pair<int, int>& v) { return v.first * 10 + v.second; });
  const std::size_t p1 = ports.add(1, kNoStatParent, 1u);
  const std::size_t p2 = ports.add(2, kNoStatParent, 2u);
  vls.add({2, 0}, p2, 0u);
  vls.add({1, 0}, p1, 0u);
  // Another layer adds a statistic to a kind registered elsewhere.
  reg.kind<int>("ports").figure("window", "fraction", Merge::kSame, kPortUtilizationCsv,
                                [](int p) { return p == 1 ? std::optional<double>(0.25) : std::nullopt; });
  CHECK(reg.has_kind("vls"));
  CHECK_FALSE(reg.has_kind("qps"));

  const StatsSnapshot s = reg.snapshot();
  REQUIRE(s.rows.size() == 4);
  CHECK(s.kinds[1].parent == 0);
  CHECK(s.rows[2].parent == p2);
  CHECK(s.rows[2].values[0] == StatValue{std::uint64_t{20}});
  CHECK(s.rows[3].values[0] == StatValue{std::uint64_t{10}});
  CHECK(s.rows[0].values[0] == StatValue{0.25});
  CHECK(std::holds_alternative<std::monostate>(s.rows[1].values[0]));  // an empty optional: absent
}

TEST_CASE("the registry refuses inconsistent registrations", "[core][stats_registry]") {
  StatsRegistry reg;
  auto ports = reg.add_kind<int>("ports", {"node", "port"});
  ports.counter("tx", "packets", kPortsCsv, [](int) { return 1; });
  CHECK_THROWS_AS(ports.counter("tx", "packets", kPortsCsv, [](int) { return 1; }), SimError);  // twice
  CHECK_THROWS_AS(reg.add_kind<int>("ports", {}), SimError);
  CHECK_THROWS_AS(reg.kind<double>("ports"), SimError);       // another owner type
  CHECK_THROWS_AS(reg.kind<int>("links"), SimError);          // never registered
  CHECK_THROWS_AS(ports.add(1, kNoStatParent, "sw1"), SimError);  // one key short
  CHECK_THROWS_AS(reg.add_kind<int>("vls", {"vl"}, Nesting::kObjects), SimError);  // nested without a parent
  auto vls = reg.add_kind<int>("vls", {"vl"}, Nesting::kObjects, ports.index());
  CHECK_THROWS_AS(vls.add(0, kNoStatParent, 0u), SimError);  // its row needs a port's row
  CHECK_THROWS_AS(reg.add_kind<int>("discards", {}, Nesting::kMap, ports.index()), SimError);  // a map needs a key
}

TEST_CASE("a snapshot of some outputs takes their rows and their parents, and rows can be read one at a time",
          "[core][stats_registry]") {
  StatsRegistry reg;
  int reads = 0;
  auto fabric = reg.add_kind<int>("fabric", {});
  fabric.counter("packets.created", "packets", kResultsTop, [](int) { return 5; });
  auto ports = reg.add_kind<int>("ports", {"port"});
  ports.counter("tx", "packets", kPortsCsv, [&reads](int p) { return ++reads, p * 10; });
  auto vls = reg.add_kind<int>("vls", {"vl"}, Nesting::kObjects, ports.index());
  vls.counter("stall", "ns", kPortVlsCsv, [](int v) { return v; });
  fabric.add(0, kNoStatParent);
  const std::size_t p1 = ports.add(1, kNoStatParent, 1u), p2 = ports.add(2, kNoStatParent, 2u);
  vls.add(7, p2, 0u);

  const StatsSnapshot top = reg.snapshot(kResultsTop);
  CHECK(top.kinds.size() == 3);  // every kind described
  REQUIRE(top.rows.size() == 1);
  CHECK(top.rows[0].values[0] == StatValue{std::uint64_t{5}});
  CHECK(reads == 0);  // the ports' getters were not called

  const StatsSnapshot v = reg.snapshot(kPortVlsCsv);
  REQUIRE(v.rows.size() == 2);  // the VL and its port, for the port's key
  CHECK(v.rows[0].kind == ports.index());
  CHECK(std::holds_alternative<std::monostate>(v.rows[0].values[0]));  // not in the output: not read
  CHECK(v.rows[1].parent == 0);
  CHECK(v.rows[1].values[0] == StatValue{std::uint64_t{7}});
  CHECK(reads == 0);

  std::vector<std::pair<std::size_t, StatValue>> seen;
  reg.read_rows(kPortsCsv | kPortVlsCsv, [&](std::size_t index, const StatRow& row) {
    seen.emplace_back(index, row.values[0]);
    if (row.kind == vls.index()) CHECK(reg.row_keys(row.parent) == std::vector<StatValue>{std::uint64_t{2}});
  });
  CHECK(seen == std::vector<std::pair<std::size_t, StatValue>>{
                    {p1, std::uint64_t{10}}, {p2, std::uint64_t{20}}, {3, std::uint64_t{7}}});
  CHECK(reads == 2);
  CHECK(reg.rows_in(kPortsCsv) == 2);
  CHECK(reg.rows_in(kPortsCsv | kPortVlsCsv) == 3);
  CHECK(reg.row_parent(3) == p2);
  CHECK(reg.snapshot().rows.size() == 4);  // everything
}
