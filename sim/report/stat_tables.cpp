#include "sim/report/stat_tables.h"

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "sim/core/error.h"
#include "sim/report/csv_text.h"

namespace ibfsim {

namespace {

bool in_output(const StatInfo& st, StatOutput output) { return (st.outputs & output) != 0; }

bool has_output(const StatKindInfo& k, StatOutput output) {
  for (const StatInfo& st : k.stats)
    if (in_output(st, output)) return true;
  return false;
}

bool absent(const StatValue& v) { return std::holds_alternative<std::monostate>(v); }

// Whether a row appears in `output` (stat_tables.h).
bool shown(const std::vector<StatKindInfo>& kinds, const StatRow& row, StatOutput output) {
  bool figures = false;
  const StatKindInfo& k = kinds[row.kind];
  for (std::size_t i = 0; i < k.stats.size(); ++i) {
    if (!in_output(k.stats[i], output) || k.stats[i].attribute) continue;
    if (!absent(row.values[i])) return true;
    figures = true;
  }
  return !figures;
}

// The one statistic of a map's or list's row in `output`.
const StatValue& only_value(const StatsSnapshot& s, const StatRow& row, StatOutput output) {
  const StatKindInfo& k = s.kinds[row.kind];
  const StatValue* v = nullptr;
  for (std::size_t i = 0; i < k.stats.size(); ++i) {
    if (!in_output(k.stats[i], output)) continue;
    IBFSIM_CHECK(v == nullptr, "statistics: " + k.name + " has more than one statistic in an output");
    v = &row.values[i];
  }
  return *v;
}

std::string text(const StatValue& v, int decimals = -1) {
  struct Visitor {
    int decimals;
    std::string operator()(std::monostate) const { return ""; }
    std::string operator()(std::uint64_t n) const { return fmt::format("{}", n); }
    std::string operator()(double d) const { return decimals < 0 ? fmt::format("{}", d) : fmt::format("{:.{}f}", d, decimals); }
    std::string operator()(const std::string& t) const { return t; }
    // A list in one cell, its numbers separated by spaces ("" when empty, as absent).
    std::string operator()(const std::vector<double>& l) const { return fmt::format("{}", fmt::join(l, " ")); }
  };
  return std::visit(Visitor{decimals}, v);
}

nlohmann::json json_value(const StatValue& v) {
  struct Visitor {
    nlohmann::json operator()(std::monostate) const { return nullptr; }
    nlohmann::json operator()(std::uint64_t n) const { return n; }
    nlohmann::json operator()(double d) const { return d; }
    nlohmann::json operator()(const std::string& t) const { return t; }
    nlohmann::json operator()(const std::vector<double>& l) const { return l; }
  };
  return std::visit(Visitor{}, v);
}

// The member at a dotted path of `object`, made (null) with the objects on the way if missing.
nlohmann::json& at_path(nlohmann::json& object, const std::string& path) {
  nlohmann::json* at = &object;
  std::size_t from = 0;
  for (;;) {
    const std::size_t dot = path.find('.', from);
    at = &(*at)[path.substr(from, dot == std::string::npos ? std::string::npos : dot - from)];
    if (dot == std::string::npos) return *at;
    from = dot + 1;
  }
}

std::string last_part(const std::string& path) {
  const std::size_t dot = path.rfind('.');
  return dot == std::string::npos ? path : path.substr(dot + 1);
}

// Each row's nested rows, in order.
std::vector<std::vector<std::size_t>> children(const StatsSnapshot& s) {
  std::vector<std::vector<std::size_t>> c(s.rows.size());
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (s.rows[r].parent != kNoStatParent) c[s.rows[r].parent].push_back(r);
  return c;
}

using Children = std::vector<std::vector<std::size_t>>;

void fill_object(const StatsSnapshot& s, const Children& children, std::size_t r, StatOutput output,
                 nlohmann::json& object);

// A nested row into its parent's object, as its kind's Nesting says.
void add_nested(const StatsSnapshot& s, const Children& children, std::size_t r, StatOutput output,
                nlohmann::json& parent) {
  const StatRow& row = s.rows[r];
  const StatKindInfo& k = s.kinds[row.kind];
  switch (k.nesting) {
    case Nesting::kObjects: {
      nlohmann::json& m = at_path(parent, k.name);
      if (m.is_null()) m = nlohmann::json::array();
      if (!shown(s.kinds, row, output)) return;
      nlohmann::json o = nlohmann::json::object();
      fill_object(s, children, r, output, o);
      m.push_back(std::move(o));
      return;
    }
    case Nesting::kMap: {
      nlohmann::json& m = at_path(parent, k.name);
      if (m.is_null()) m = nlohmann::json::object();
      const StatValue& v = only_value(s, row, output);
      if (!absent(v)) m[text(row.keys.back())] = json_value(v);
      return;
    }
    case Nesting::kList: {
      const StatValue& v = only_value(s, row, output);
      if (absent(v)) return;
      nlohmann::json& m = at_path(parent, k.name);
      if (m.is_null()) m = nlohmann::json::array();
      m.push_back(json_value(v));
      return;
    }
    case Nesting::kTop:
      break;
  }
  IBFSIM_CHECK(false, "statistics: a top-level kind nested: " + k.name);
}

// A row's keys, its figures in `output` and its nested rows, into `object`.
void fill_object(const StatsSnapshot& s, const Children& children, std::size_t r, StatOutput output,
                 nlohmann::json& object) {
  const StatRow& row = s.rows[r];
  const StatKindInfo& k = s.kinds[row.kind];
  for (std::size_t i = 0; i < k.keys.size(); ++i) object[k.keys[i]] = json_value(row.keys[i]);
  for (std::size_t i = 0; i < k.stats.size(); ++i)
    if (in_output(k.stats[i], output) && !absent(row.values[i])) at_path(object, k.stats[i].name) = json_value(row.values[i]);
  for (std::size_t c : children[r])
    if (has_output(s.kinds[s.rows[c].kind], output)) add_nested(s, children, c, output, object);
}

bool top_in(const StatsSnapshot& s, const StatRow& row, StatOutput output) {
  const StatKindInfo& k = s.kinds[row.kind];
  return k.nesting == Nesting::kTop && has_output(k, output);
}

// The CSV table of `output` from rows given one at a time: `for_each_row(f)` calls f with each row
// in order; `parent(i)` gives the keys and the parent of row i (a row's `parent` is such an index).
template <class ForEachRow, class Parent>
std::uint64_t write_csv(const std::vector<StatKindInfo>& kinds, StatOutput output, ForEachRow for_each_row,
                        Parent parent, const std::function<void(std::string_view)>& sink) {
  std::size_t kind = kNoStatParent;
  for (std::size_t k = 0; k < kinds.size(); ++k) {
    if (!has_output(kinds[k], output)) continue;
    IBFSIM_CHECK(kind == kNoStatParent, "statistics: two kinds in one CSV table: " + kinds[kind].name + ", " + kinds[k].name);
    kind = k;
  }
  IBFSIM_CHECK(kind != kNoStatParent, "statistics: nothing registered for a CSV table");
  // The kind and its parents, outermost first: their keys come first in every line.
  std::vector<std::size_t> chain;
  for (std::size_t k = kind; k != kNoStatParent; k = kinds[k].parent) chain.insert(chain.begin(), k);
  std::string line;
  const char* sep = "";
  auto cell = [&](const std::string& v) {
    line += sep;
    append_csv_cell(line, v);
    sep = ",";
  };
  for (std::size_t k : chain)
    for (const std::string& key : kinds[k].keys) cell(key);
  const StatKindInfo& info = kinds[kind];
  for (const StatInfo& st : info.stats)
    if (in_output(st, output)) cell(last_part(st.name));
  line += '\n';
  sink(line);
  std::uint64_t written = 0;
  std::vector<const std::vector<StatValue>*> keys(chain.size());
  for_each_row([&](const StatRow& row) {
    if (row.kind != kind || !shown(kinds, row, output)) return;
    keys.back() = &row.keys;
    std::size_t up = row.parent;
    for (std::size_t i = chain.size() - 1; i > 0; --i) {
      const auto [parent_keys, next] = parent(up);
      keys[i - 1] = parent_keys;
      up = next;
    }
    line.clear();
    sep = "";
    for (const std::vector<StatValue>* k : keys)
      for (const StatValue& key : *k) cell(text(key));
    for (std::size_t i = 0; i < info.stats.size(); ++i)
      if (in_output(info.stats[i], output)) cell(text(row.values[i], info.stats[i].decimals));
    line += '\n';
    sink(line);
    ++written;
  });
  return written;
}

}  // namespace

std::uint64_t write_stats_csv(const StatsSnapshot& s, StatOutput output,
                              const std::function<void(std::string_view)>& sink) {
  return write_csv(
      s.kinds, output,
      [&s](const auto& f) {
        for (const StatRow& row : s.rows) f(row);
      },
      [&s](std::size_t r) { return std::pair{&s.rows[r].keys, s.rows[r].parent}; }, sink);
}

std::uint64_t write_stats_csv(const StatsRegistry& registry, StatOutput output,
                              const std::function<void(std::string_view)>& sink) {
  return write_csv(
      registry.kind_infos(), output,
      [&](const auto& f) { registry.read_rows(output, [&f](std::size_t, const StatRow& row) { f(row); }); },
      [&registry](std::size_t r) { return std::pair{&registry.row_keys(r), registry.row_parent(r)}; }, sink);
}

std::string stats_csv(const StatsSnapshot& s, StatOutput output) {
  std::string out;
  write_stats_csv(s, output, [&out](std::string_view line) { out.append(line.data(), line.size()); });
  return out;
}

bool has_stats_output(const std::vector<StatKindInfo>& kinds, StatOutput output) {
  for (const StatKindInfo& k : kinds)
    if (has_output(k, output)) return true;
  return false;
}

std::uint64_t stats_csv_rows(const StatsSnapshot& s, StatOutput output) {
  std::uint64_t n = 0;
  for (const StatRow& row : s.rows)
    if (has_output(s.kinds[row.kind], output) && shown(s.kinds, row, output)) ++n;
  return n;
}

nlohmann::json stats_json_array(const StatsSnapshot& s, StatOutput output) {
  const Children c = children(s);
  nlohmann::json out = nlohmann::json::array();
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    if (!top_in(s, s.rows[r], output) || !shown(s.kinds, s.rows[r], output)) continue;
    nlohmann::json o = nlohmann::json::object();
    fill_object(s, c, r, output, o);
    out.push_back(std::move(o));
  }
  return out;
}

void add_stats_json(const StatsSnapshot& s, StatOutput output, nlohmann::json& object) {
  const Children c = children(s);
  for (std::size_t r = 0; r < s.rows.size(); ++r)
    if (top_in(s, s.rows[r], output)) fill_object(s, c, r, output, object);
}

}  // namespace ibfsim
