#include "sim/core/stats_rank_merge.h"

#include <map>

#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/core/rank_event_codec.h"

namespace ibfsim {

namespace {

// A value: its variant index, then what it holds.
void put_value(ByteWriter& w, const StatValue& v) {
  w.put(static_cast<std::uint8_t>(v.index()));
  if (const auto* n = std::get_if<std::uint64_t>(&v)) {
    w.put(*n);
  } else if (const auto* d = std::get_if<double>(&v)) {
    w.put(*d);
  } else if (const auto* s = std::get_if<std::string>(&v)) {
    w.bytes(std::vector<std::uint8_t>(s->begin(), s->end()));
  } else if (const auto* l = std::get_if<std::vector<double>>(&v)) {
    w.put(static_cast<std::uint64_t>(l->size()));
    for (double x : *l) w.put(x);
  }
}

StatValue get_value(ByteReader& r) {
  switch (r.get<std::uint8_t>()) {
    case 0: return StatValue{};
    case 1: return r.get<std::uint64_t>();
    case 2: return r.get<double>();
    case 3: {
      const std::vector<std::uint8_t> b = r.bytes();
      return std::string(b.begin(), b.end());
    }
    case 4: {
      std::vector<double> l(r.get<std::uint64_t>());
      for (double& x : l) x = r.get<double>();
      return l;
    }
    default: IBFSIM_CHECK(false, "statistics from another rank: unknown value tag");
  }
  return StatValue{};
}

void put_values(ByteWriter& w, const std::vector<StatValue>& values) {
  w.put(static_cast<std::uint64_t>(values.size()));
  for (const StatValue& v : values) put_value(w, v);
}

std::vector<StatValue> get_values(ByteReader& r) {
  std::vector<StatValue> values(r.get<std::uint64_t>());
  for (StatValue& v : values) v = get_value(r);
  return values;
}

// Values compared as their bytes: a NaN equals itself, -0.0 differs from 0.0, as they print.
std::vector<std::uint8_t> value_bytes(const std::vector<StatValue>& values) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  put_values(w, values);
  return out;
}

std::string row_name(const StatRow& row, const std::vector<StatKindInfo>& kinds) {
  std::string keys;
  for (const StatValue& k : row.keys) {
    if (const auto* s = std::get_if<std::string>(&k)) keys += (keys.empty() ? "" : ",") + *s;
    else if (const auto* n = std::get_if<std::uint64_t>(&k)) keys += (keys.empty() ? "" : ",") + std::to_string(*n);
  }
  const std::string kind = row.kind < kinds.size() ? kinds[row.kind].name : std::to_string(row.kind);
  return keys.empty() ? kind : fmt::format("{} {}", kind, keys);
}

// ": <the first statistic two rows of one kind differ on>", or nothing if the kind is unknown.
std::string differing_stat(const StatRow& a, const StatRow& b, const std::vector<StatKindInfo>& kinds) {
  if (a.kind >= kinds.size()) return {};
  const std::vector<StatInfo>& stats = kinds[a.kind].stats;
  for (std::size_t s = 0; s < a.values.size() && s < b.values.size() && s < stats.size(); ++s)
    if (value_bytes({a.values[s]}) != value_bytes({b.values[s]})) return ": " + stats[s].name;
  return {};
}

}  // namespace

std::vector<std::uint8_t> encode_stat_rows(const std::vector<StatRow>& rows) {
  std::vector<std::uint8_t> out;
  ByteWriter w(out);
  w.put(static_cast<std::uint64_t>(rows.size()));
  for (const StatRow& row : rows) {
    w.put(static_cast<std::uint64_t>(row.kind));
    w.put(static_cast<std::uint64_t>(row.parent));
    put_values(w, row.keys);
    put_values(w, row.values);
  }
  return out;
}

std::vector<StatRow> decode_stat_rows(const std::vector<std::uint8_t>& bytes) {
  ByteReader r(bytes);
  std::vector<StatRow> rows(r.get<std::uint64_t>());
  for (StatRow& row : rows) {
    row.kind = static_cast<std::size_t>(r.get<std::uint64_t>());
    row.parent = static_cast<std::size_t>(r.get<std::uint64_t>());
    row.keys = get_values(r);
    row.values = get_values(r);
  }
  IBFSIM_CHECK(r.done(), "statistics from another rank: bytes left over");
  return rows;
}

RankRowsMerge merge_rank_rows(const std::vector<std::vector<StatRow>>& per_rank,
                              const std::vector<StatKindInfo>& kinds,
                              const std::function<std::optional<std::size_t>(const StatRow& top)>& owner) {
  RankRowsMerge m;
  if (per_rank.empty()) return m;
  const std::vector<StatRow>& first = per_rank.front();
  for (std::size_t r = 1; r < per_rank.size(); ++r) {
    const std::vector<StatRow>& other = per_rank[r];
    if (other.size() != first.size()) {
      m.disagreement = fmt::format("rank {} has {} rows, rank 0 {}", r, other.size(), first.size());
      return m;
    }
    for (std::size_t i = 0; i < first.size(); ++i)
      if (other[i].kind != first[i].kind || other[i].parent != first[i].parent ||
          value_bytes(other[i].keys) != value_bytes(first[i].keys)) {
        m.disagreement = fmt::format("rank {} has {} where rank 0 has {}", r, row_name(other[i], kinds),
                                     row_name(first[i], kinds));
        return m;
      }
  }
  m.rows.reserve(first.size());
  for (std::size_t i = 0; i < first.size(); ++i) {
    std::size_t top = i;
    while (first[top].parent != kNoStatParent) {
      IBFSIM_CHECK(first[top].parent < top, "statistics: a row's parent comes after it");
      top = first[top].parent;
    }
    const std::optional<std::size_t> o = owner(first[top]);
    if (o) {
      IBFSIM_CHECK(*o < per_rank.size(), "statistics: a row owned by a rank that did not send its rows");
      m.rows.push_back(per_rank[*o][i]);
      continue;
    }
    const std::vector<std::uint8_t> v = value_bytes(first[i].values);
    for (std::size_t r = 1; r < per_rank.size(); ++r)
      if (value_bytes(per_rank[r][i].values) != v) {
        m.rows.clear();
        m.disagreement = fmt::format("{} is no rank's own and ranks 0 and {} differ on it{}", row_name(first[i], kinds),
                                     r, differing_stat(first[i], per_rank[r][i], kinds));
        return m;
      }
    m.rows.push_back(first[i]);
  }
  return m;
}

RankRowsMerge merge_owned_rank_rows(const std::vector<std::vector<StatRow>>& per_rank,
                                    const std::vector<StatKindInfo>& kinds,
                                    const std::function<std::optional<RankRowOwner>(const StatRow& top)>& owner) {
  struct Taken {
    std::size_t rank = 0, row = 0;
  };
  std::map<std::size_t, std::vector<Taken>> by_place;  // each owner's rows, by its place
  for (std::size_t r = 0; r < per_rank.size(); ++r) {
    const std::vector<StatRow>& rows = per_rank[r];
    std::vector<std::size_t> top(rows.size());
    for (std::size_t i = 0; i < rows.size(); ++i) {
      IBFSIM_CHECK(rows[i].parent == kNoStatParent || rows[i].parent < i, "statistics: a row's parent comes after it");
      top[i] = rows[i].parent == kNoStatParent ? i : top[rows[i].parent];
      const std::optional<RankRowOwner> o = owner(rows[top[i]]);
      if (!o) {
        RankRowsMerge m;
        m.disagreement = fmt::format("{} is no rank's own and the ranks have different rows", row_name(rows[i], kinds));
        return m;
      }
      if (o->rank == r) by_place[o->place].push_back({r, i});
    }
  }
  RankRowsMerge m;
  std::map<std::pair<std::size_t, std::size_t>, std::size_t> index;  // (rank, its row) -> merged row
  for (const auto& [place, taken] : by_place)
    for (const Taken& t : taken) {
      StatRow row = per_rank[t.rank][t.row];
      if (row.parent != kNoStatParent) row.parent = index.at({t.rank, row.parent});
      index[{t.rank, t.row}] = m.rows.size();
      m.rows.push_back(std::move(row));
    }
  return m;
}

}  // namespace ibfsim
