#include "sim/core/stats_registry.h"

#include "sim/core/error.h"

namespace ibfsim {

std::size_t StatsRegistry::add_kind_entry(StatKindInfo info, std::unique_ptr<Store> store, std::type_index type) {
  IBFSIM_CHECK(!has_kind(info.name), "statistics: kind registered twice: " + info.name);
  IBFSIM_CHECK((info.nesting == Nesting::kTop) == (info.parent == kNoStatParent) && (info.parent == kNoStatParent || info.parent < kinds_.size()),
               "statistics: a nested kind needs a parent registered before it, a top one none: " + info.name);
  IBFSIM_CHECK(info.nesting != Nesting::kMap || !info.keys.empty(), "statistics: a map's rows need a key: " + info.name);
  kinds_.push_back(KindEntry{std::move(info), std::move(store), type});
  return kinds_.size() - 1;
}

bool StatsRegistry::has_kind(const std::string& name) const {
  for (const KindEntry& k : kinds_)
    if (k.info.name == name) return true;
  return false;
}

std::size_t StatsRegistry::find_kind(const std::string& name, std::type_index type) const {
  for (std::size_t k = 0; k < kinds_.size(); ++k) {
    if (kinds_[k].info.name != name) continue;
    IBFSIM_CHECK(kinds_[k].type == type, "statistics: kind " + name + " holds owners of another type");
    return k;
  }
  IBFSIM_CHECK(false, "statistics: no kind " + name);
  return 0;
}

void StatsRegistry::add_stat(std::size_t kind, StatInfo info) {
  StatKindInfo& k = kinds_.at(kind).info;
  for (const StatInfo& s : k.stats)
    IBFSIM_CHECK(s.name != info.name, "statistics: " + k.name + " has " + info.name + " already");
  k.stats.push_back(std::move(info));
}

std::size_t StatsRegistry::add_row(std::size_t kind, std::size_t owner, std::size_t parent,
                                   std::vector<StatValue> keys) {
  const StatKindInfo& k = kinds_.at(kind).info;
  IBFSIM_CHECK(keys.size() == k.keys.size(), "statistics: wrong number of keys for a row of " + k.name);
  IBFSIM_CHECK(k.parent == kNoStatParent ? parent == kNoStatParent : parent < rows_.size() && rows_[parent].kind == k.parent,
               "statistics: a row of " + k.name + " needs a parent row of its parent kind");
  rows_.push_back(RowEntry{kind, owner, parent, std::move(keys)});
  return rows_.size() - 1;
}

StatsSnapshot StatsRegistry::snapshot() const {
  StatsSnapshot s;
  s.kinds.reserve(kinds_.size());
  for (const KindEntry& k : kinds_) s.kinds.push_back(k.info);
  s.rows.reserve(rows_.size());
  for (const RowEntry& r : rows_) {
    StatRow row{r.kind, r.parent, r.keys, {}};
    row.values.reserve(s.kinds[r.kind].stats.size());
    kinds_[r.kind].store->read(r.owner, row.values);
    s.rows.push_back(std::move(row));
  }
  return s;
}

}  // namespace ibfsim
