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

StatsSnapshot StatsRegistry::snapshot() const { return snapshot(kAllStatOutputs); }

std::vector<StatKindInfo> StatsRegistry::kind_infos() const {
  std::vector<StatKindInfo> out;
  out.reserve(kinds_.size());
  for (const KindEntry& k : kinds_) out.push_back(k.info);
  return out;
}

std::vector<std::vector<bool>> StatsRegistry::wanted(StatOutputs outputs) const {
  const bool all = outputs == kAllStatOutputs;  // every statistic, whatever its outputs
  std::vector<std::vector<bool>> w(kinds_.size());
  for (std::size_t k = 0; k < kinds_.size(); ++k)
    for (const StatInfo& st : kinds_[k].info.stats) w[k].push_back(all || (st.outputs & outputs) != 0);
  return w;
}

namespace {
bool any(const std::vector<bool>& v) {
  for (bool b : v)
    if (b) return true;
  return false;
}
}  // namespace

StatsSnapshot StatsRegistry::snapshot(StatOutputs outputs) const {
  const std::vector<std::vector<bool>> want = wanted(outputs);
  // The rows taken: those of kinds with statistics in `outputs`, and their parents (which come first).
  std::vector<bool> take(rows_.size(), false);
  for (std::size_t r = rows_.size(); r-- > 0;) {
    if (outputs == kAllStatOutputs || any(want[rows_[r].kind])) take[r] = true;
    if (take[r] && rows_[r].parent != kNoStatParent) take[rows_[r].parent] = true;
  }
  StatsSnapshot s;
  s.kinds = kind_infos();
  std::vector<std::size_t> index(rows_.size(), kNoStatParent);  // a row's place in the snapshot
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    if (!take[r]) continue;
    const RowEntry& e = rows_[r];
    StatRow row{e.kind, e.parent == kNoStatParent ? kNoStatParent : index[e.parent], e.keys, {}};
    row.values.reserve(want[e.kind].size());
    kinds_[e.kind].store->read(e.owner, want[e.kind], row.values);
    index[r] = s.rows.size();
    s.rows.push_back(std::move(row));
  }
  return s;
}

void StatsRegistry::read_rows(StatOutputs outputs, const std::function<void(std::size_t, const StatRow&)>& f) const {
  const std::vector<std::vector<bool>> want = wanted(outputs);
  StatRow row;
  for (std::size_t r = 0; r < rows_.size(); ++r) {
    const RowEntry& e = rows_[r];
    if (!any(want[e.kind])) continue;
    row.kind = e.kind;
    row.parent = e.parent;
    row.keys = e.keys;
    row.values.clear();
    kinds_[e.kind].store->read(e.owner, want[e.kind], row.values);
    f(r, row);
  }
}

std::size_t StatsRegistry::rows_in(StatOutputs outputs) const {
  const std::vector<std::vector<bool>> want = wanted(outputs);
  std::size_t n = 0;
  for (const RowEntry& e : rows_) n += any(want[e.kind]) ? 1 : 0;
  return n;
}

}  // namespace ibfsim
