#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/error.h"
#include "sim/core/stats_rank_merge.h"
#include "sim/report/stat_tables.h"

using namespace ibfsim;

namespace {

StatRow row(std::size_t kind, std::size_t parent, std::vector<StatValue> keys, std::vector<StatValue> values) {
  StatRow r;
  r.kind = kind;
  r.parent = parent;
  r.keys = std::move(keys);
  r.values = std::move(values);
  return r;
}

std::vector<StatKindInfo> port_kinds() {
  StatKindInfo fabric;
  fabric.name = "fabric";
  fabric.stats.push_back(StatInfo{"packets.delivered", "packets", Merge::kSum, kResultsTop, -1, false});
  StatKindInfo ports;
  ports.name = "ports";
  ports.keys = {"node", "port"};
  ports.stats.push_back(StatInfo{"tx_packets", "packets", Merge::kSum, kPortsCsv, -1, false});
  StatKindInfo vls;
  vls.name = "vls";
  vls.parent = 1;
  vls.nesting = Nesting::kObjects;
  vls.keys = {"vl"};
  vls.stats.push_back(StatInfo{"rx_buffer_max_blocks", "blocks", Merge::kMax, kPortVlsCsv, -1, false});
  return {fabric, ports, vls};
}

// The rows one rank reads: the fabric's row, h1/1 and its VL 0, h2/1 and its VL 0. `h1`, `h2`:
// what this rank read for each host's port and VL.
std::vector<StatRow> rank_rows(std::uint64_t delivered, std::uint64_t h1, std::uint64_t h2) {
  return {row(0, kNoStatParent, {}, {delivered}),
          row(1, kNoStatParent, {std::string("h1"), std::uint64_t{1}}, {h1}),
          row(2, 1, {std::uint64_t{0}}, {h1 + 100}),
          row(1, kNoStatParent, {std::string("h2"), std::uint64_t{1}}, {h2}),
          row(2, 3, {std::uint64_t{0}}, {h2 + 100})};
}

// h1 is rank 0's, h2 rank 1's; nothing else is anyone's.
std::optional<std::size_t> owner(const StatRow& top) {
  if (top.keys.empty()) return std::nullopt;
  const std::string& name = std::get<std::string>(top.keys[0]);
  return name == "h1" ? 0 : name == "h2" ? 1 : 2;
}

}  // namespace

TEST_CASE("statistics rows cross ranks as bytes and come back the same", "[core][ranks]") {
  const double nan = std::numeric_limits<double>::quiet_NaN();
  const std::vector<StatRow> rows = {
      row(0, kNoStatParent, {}, {StatValue{}, std::uint64_t{18446744073709551615u}, -0.0}),
      row(3, 0, {std::string("sw1"), std::uint64_t{7}},
          {std::string("a,\"b\""), std::vector<double>{1.5, nan}, std::string()})};
  const std::vector<std::uint8_t> bytes = encode_stat_rows(rows);
  // 8 (rows) + row 0: 8 kind + 8 parent + 8 (no keys) + 8 (3 values) + 1 + 9 + 9
  // + row 1: 8 + 8 + 8 (2 keys) + (1+8+3) + (1+8) + 8 (3 values) + (1+8+5) + (1+8+8+8) + (1+8)
  CHECK(bytes.size() == 8 + (8 + 8 + 8 + 8 + 1 + 9 + 9) + (8 + 8 + 8 + 12 + 9 + 8 + 14 + 25 + 9));
  const std::vector<StatRow> back = decode_stat_rows(bytes);
  REQUIRE(back.size() == 2);
  CHECK(back[0].kind == 0);
  CHECK(back[0].parent == kNoStatParent);
  CHECK(back[0].keys.empty());
  REQUIRE(back[0].values.size() == 3);
  CHECK(std::holds_alternative<std::monostate>(back[0].values[0]));
  CHECK(std::get<std::uint64_t>(back[0].values[1]) == 18446744073709551615u);
  CHECK(std::signbit(std::get<double>(back[0].values[2])));
  CHECK(back[1].kind == 3);
  CHECK(back[1].parent == 0);
  CHECK(std::get<std::string>(back[1].keys[0]) == "sw1");
  CHECK(std::get<std::uint64_t>(back[1].keys[1]) == 7);
  CHECK(std::get<std::string>(back[1].values[0]) == "a,\"b\"");
  const auto& list = std::get<std::vector<double>>(back[1].values[1]);
  REQUIRE(list.size() == 2);
  CHECK(list[0] == 1.5);
  CHECK(std::isnan(list[1]));
  CHECK(std::get<std::string>(back[1].values[2]).empty());
  // Bytes cut short, or one too many, are an invariant failure, not a wrong row.
  std::vector<std::uint8_t> cut(bytes.begin(), bytes.end() - 1);
  CHECK_THROWS_AS(decode_stat_rows(cut), SimError);
  std::vector<std::uint8_t> longer = bytes;
  longer.push_back(0);
  CHECK_THROWS_AS(decode_stat_rows(longer), SimError);
}

TEST_CASE("rank 0 takes each statistics row from the rank that owns its node, nested rows with their parent",
          "[core][ranks]") {
  const std::vector<StatKindInfo> kinds = port_kinds();
  // Rank 0 simulated h1 (5 packets), rank 1 h2 (9); each read the other's port as it was at the
  // split (0). The fabric's figure is the same on both (the ledger is reduced across ranks).
  const std::vector<std::vector<StatRow>> per_rank = {
      decode_stat_rows(encode_stat_rows(rank_rows(14, 5, 0))),
      decode_stat_rows(encode_stat_rows(rank_rows(14, 0, 9)))};
  const RankRowsMerge m = merge_rank_rows(per_rank, kinds, owner);
  REQUIRE(m.merged());
  REQUIRE(m.rows.size() == 5);
  CHECK(std::get<std::uint64_t>(m.rows[0].values[0]) == 14);
  CHECK(std::get<std::uint64_t>(m.rows[1].values[0]) == 5);
  CHECK(std::get<std::uint64_t>(m.rows[2].values[0]) == 105);
  CHECK(std::get<std::uint64_t>(m.rows[3].values[0]) == 9);
  CHECK(std::get<std::uint64_t>(m.rows[4].values[0]) == 109);
  // Written as a one-rank run's table would be.
  const StatsSnapshot merged{kinds, m.rows};
  CHECK(stats_csv(merged, kPortsCsv) == "node,port,tx_packets\nh1,1,5\nh2,1,9\n");
  CHECK(stats_csv(merged, kPortVlsCsv) == "node,port,vl,rx_buffer_max_blocks\nh1,1,0,105\nh2,1,0,109\n");
}

TEST_CASE("ranks that disagree on a row no rank owns, or on which rows there are, merge nothing",
          "[core][ranks]") {
  const std::vector<StatKindInfo> kinds = port_kinds();
  const RankRowsMerge figures = merge_rank_rows({rank_rows(14, 5, 0), rank_rows(13, 0, 9)}, kinds, owner);
  CHECK_FALSE(figures.merged());
  CHECK(figures.rows.empty());
  CHECK(figures.disagreement == "fabric is no rank's own and ranks 0 and 1 differ on it: packets.delivered");

  std::vector<StatRow> fewer = rank_rows(14, 0, 9);
  fewer.pop_back();
  const RankRowsMerge count = merge_rank_rows({rank_rows(14, 5, 0), fewer}, kinds, owner);
  CHECK(count.disagreement == "rank 1 has 4 rows, rank 0 5");

  std::vector<StatRow> other = rank_rows(14, 0, 9);
  other[3].keys[0] = std::string("h3");
  const RankRowsMerge keys = merge_rank_rows({rank_rows(14, 5, 0), other}, kinds, owner);
  CHECK(keys.disagreement == "rank 1 has ports h3,1 where rank 0 has ports h2,1");

  // One rank: its rows as they are.
  const RankRowsMerge one = merge_rank_rows({rank_rows(14, 5, 0)}, kinds, [](const StatRow&) { return std::optional<std::size_t>(0); });
  REQUIRE(one.merged());
  CHECK(one.rows.size() == 5);
}

TEST_CASE("rows registered only where a rank had something to say merge by their owner's place", "[core][ranks]") {
  const std::vector<StatKindInfo> kinds = port_kinds();
  // Three hosts: h1 (place 0) and h3 (place 2) are rank 0's, h2 (place 1) rank 1's. Rank 0 has
  // rows for h3 and h1 (registered in that order) and a stale one for h2; rank 1 only for h2.
  auto port = [](const char* h, std::uint64_t v) { return row(1, kNoStatParent, {std::string(h), std::uint64_t{1}}, {std::uint64_t{v}}); };
  const std::vector<StatRow> rank0 = {port("h3", 30), row(2, 0, {std::uint64_t{0}}, {std::uint64_t{130}}), port("h1", 10),
                                      port("h2", 0)};
  const std::vector<StatRow> rank1 = {port("h2", 20), row(2, 0, {std::uint64_t{0}}, {std::uint64_t{120}})};
  auto place_of = [](const StatRow& top) -> std::optional<RankRowOwner> {
    if (top.keys.empty()) return std::nullopt;
    const std::string& name = std::get<std::string>(top.keys[0]);
    if (name == "h1") return RankRowOwner{0, 0};
    if (name == "h2") return RankRowOwner{1, 1};
    if (name == "h3") return RankRowOwner{0, 2};
    return std::nullopt;
  };
  CHECK_FALSE(merge_rank_rows({rank0, rank1}, kinds, [&](const StatRow& t) -> std::optional<std::size_t> {
                return place_of(t)->rank;
              }).merged());
  const RankRowsMerge m = merge_owned_rank_rows({rank0, rank1}, kinds, place_of);
  REQUIRE(m.merged());
  const StatsSnapshot merged{kinds, m.rows};
  CHECK(stats_csv(merged, kPortsCsv) == "node,port,tx_packets\nh1,1,10\nh2,1,20\nh3,1,30\n");
  CHECK(stats_csv(merged, kPortVlsCsv) == "node,port,vl,rx_buffer_max_blocks\nh2,1,0,120\nh3,1,0,130\n");
  // A row no rank owns cannot be placed.
  const RankRowsMerge none = merge_owned_rank_rows({{row(0, kNoStatParent, {}, {std::uint64_t{1}})}, rank1}, kinds, place_of);
  CHECK(none.disagreement == "fabric is no rank's own and the ranks have different rows");
}
