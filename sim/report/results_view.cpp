#include "sim/report/results_view.h"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <unordered_map>

#include "sim/core/error.h"
#include "sim/report/table_file.h"

namespace ibfsim {

namespace {

// Columns that hold names and words, never read as numbers (a node may be called "7").
const std::set<std::string, std::less<>>& text_columns() {
  static const std::set<std::string, std::less<>> c = {"node", "peer",     "state",  "rate",  "hca",   "a",
                                                       "b",    "trained",  "phy_mode", "fec", "link",  "switch",
                                                       "attack", "reason", "memory_keys", "name", "pattern",
                                                       "transport", "verb"};
  return c;
}
// Columns that hold a list of numbers separated by spaces.
const std::set<std::string, std::less<>>& list_columns() {
  static const std::set<std::string, std::less<>> c = {"down_ns", "retrained_up_ns", "retrained_active_ns", "p_keys",
                                                       "path"};
  return c;
}

nlohmann::json number_or_text(const std::string& c) {
  if (c == "true") return true;
  if (c == "false") return false;
  if (c.empty() || c.find_first_not_of("0123456789.eE+-") != std::string::npos) return c;
  if (c.find_first_not_of("0123456789") == std::string::npos) {
    errno = 0;
    const unsigned long long v = std::strtoull(c.c_str(), nullptr, 10);
    if (errno == 0) return static_cast<std::uint64_t>(v);
  }
  char* end = nullptr;
  const double d = std::strtod(c.c_str(), &end);
  return end == c.c_str() + c.size() ? nlohmann::json(d) : nlohmann::json(c);
}

// A cell as a JSON value; absent (null) when empty.
nlohmann::json cell_value(const std::string& column, const std::string& c) {
  if (c.empty()) return nullptr;
  if (text_columns().count(column)) return c;
  if (list_columns().count(column)) {
    nlohmann::json a = nlohmann::json::array();
    std::istringstream in(c);
    for (std::string item; in >> item;) a.push_back(number_or_text(item));
    return a;
  }
  return number_or_text(c);
}

nlohmann::json row_object(const CsvTable& t, const std::vector<std::string>& row) {
  nlohmann::json o = nlohmann::json::object();
  for (std::size_t i = 0; i < t.header.size(); ++i) {
    nlohmann::json v = cell_value(t.header[i], row[i]);
    if (!v.is_null()) o[t.header[i]] = std::move(v);
  }
  return o;
}

std::string port_key(const std::string& node, const std::string& port) { return node + '\0' + port; }

// The rows of a table with columns node and port, by port.
std::unordered_map<std::string, std::vector<std::size_t>> rows_by_port(const CsvTable& t) {
  std::unordered_map<std::string, std::vector<std::size_t>> out;
  const auto node = t.column("node"), port = t.column("port");
  if (!node || !port) return out;
  for (std::size_t r = 0; r < t.rows.size(); ++r) out[port_key(t.rows[r][*node], t.rows[r][*port])].push_back(r);
  return out;
}

// The cell of `column` in `row`, read.
nlohmann::json cell(const CsvTable& t, const std::vector<std::string>& row, const std::string& column) {
  const auto c = t.column(column);
  return c ? cell_value(column, row[*c]) : nlohmann::json(nullptr);
}

bool row_matches(const CsvTable& t, const std::vector<std::string>& row,
                 const std::vector<std::pair<std::string, std::string>>& match) {
  for (const auto& [k, v] : match) {
    const auto c = t.column(k);
    if (!c) continue;  // a member of the port object the table does not have: filtered later
    const nlohmann::json value = cell_value(k, row[*c]);
    if (!json_member_equals(value, v)) return false;
  }
  return true;
}

nlohmann::json port_objects(const std::string& folder, const std::vector<std::pair<std::string, std::string>>& match) {
  const CsvTable ports = read_table(folder, "ports");
  if (ports.header.empty()) return nullptr;
  const CsvTable vls = read_table(folder, "port_vls"), discards = read_table(folder, "discards"),
                 util = read_table(folder, "port_utilization"), stall = read_table(folder, "credit_stall");
  const auto vls_of = rows_by_port(vls), discards_of = rows_by_port(discards), util_of = rows_by_port(util),
             stall_of = rows_by_port(stall);
  const auto node = ports.column("node"), port = ports.column("port");
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : ports.rows) {
    if (!row_matches(ports, row, match)) continue;
    nlohmann::json p = row_object(ports, row);
    // rcv_errors by cause, as one object (the table's rcv_errors is their sum).
    nlohmann::json rcv = nlohmann::json::object();
    for (const char* cause : {"phy_error", "vcrc_error", "ebp"})
      if (p.contains(cause)) {
        rcv[cause] = p[cause];
        p.erase(cause);
      }
    p["rcv_errors"] = rcv;
    const std::string key = node && port ? port_key(row[*node], row[*port]) : std::string();
    nlohmann::json vl_list = nlohmann::json::array();
    if (const auto it = vls_of.find(key); it != vls_of.end())
      for (std::size_t r : it->second) {
        nlohmann::json v = row_object(vls, vls.rows[r]);
        v.erase("node");
        v.erase("port");
        vl_list.push_back(std::move(v));
      }
    if (!vl_list.empty()) p["vls"] = std::move(vl_list);
    nlohmann::json reasons = nlohmann::json::object();
    if (const auto it = discards_of.find(key); it != discards_of.end())
      for (std::size_t r : it->second) {
        const nlohmann::json reason = cell(discards, discards.rows[r], "reason");
        const nlohmann::json n = cell(discards, discards.rows[r], "packets");
        if (reason.is_string() && !n.is_null()) reasons[reason.get<std::string>()] = n;
      }
    p["discards"] = std::move(reasons);
    nlohmann::json window = nlohmann::json::object();
    if (const auto it = util_of.find(key); it != util_of.end()) {
      const nlohmann::json busy = cell(util, util.rows[it->second.front()], "busy_fraction");
      if (!busy.is_null()) window["busy_fraction"] = busy;
    }
    if (const auto it = stall_of.find(key); it != stall_of.end()) {
      nlohmann::json list = nlohmann::json::array();
      for (std::size_t r : it->second) {
        const nlohmann::json s = cell(stall, stall.rows[r], "credit_stall_ns");
        if (!s.is_null()) list.push_back(s);
      }
      if (!list.empty()) window["credit_stall_ns"] = std::move(list);
    }
    if (!window.empty()) p["window"] = std::move(window);
    out.push_back(std::move(p));
  }
  return out;
}

// links.csv as results.json had "links": never-reached times null, retrain lists with every fault.
nlohmann::json link_objects(const std::string& folder) {
  const CsvTable t = read_table(folder, "links");
  if (t.header.empty()) return nullptr;
  nlohmann::json out = table_objects(t);
  for (auto& l : out) {
    for (const char* when : {"up_ns", "active_ns"})
      if (!l.contains(when)) l[when] = nullptr;
    if (l.contains("down_ns"))
      for (const char* list : {"retrained_up_ns", "retrained_active_ns"})
        if (!l.contains(list)) l[list] = nlohmann::json::array();
  }
  return out;
}

// The rows of `table` whose column `column` equals `value`, as objects without that column.
nlohmann::json rows_where(const CsvTable& t, const std::string& column, const nlohmann::json& value) {
  nlohmann::json out = nlohmann::json::array();
  const auto c = t.column(column);
  if (!c) return out;
  for (const auto& row : t.rows) {
    if (cell_value(column, row[*c]) != value) continue;
    nlohmann::json o = row_object(t, row);
    o.erase(column);
    out.push_back(std::move(o));
  }
  return out;
}

nlohmann::json congestion_control(const std::string& folder, const nlohmann::json& results) {
  if (!results.contains("congestion_control")) return nullptr;
  nlohmann::json cc = results["congestion_control"];
  for (const auto& [member, table] : {std::pair{"switch_ports", "cc_switch_ports"}, {"qps", "cc_qps"},
                                      {"sl_throttles", "cc_sl_throttles"}})
    if (find_table(folder, table)) cc[member] = table_objects(read_table(folder, table));
  return cc;
}

nlohmann::json adaptive_routing(const std::string& folder, const nlohmann::json& results) {
  if (!results.contains("adaptive_routing")) return nullptr;
  nlohmann::json ar = results["adaptive_routing"];
  if (find_table(folder, "ar_switches")) ar["switches"] = table_objects(read_table(folder, "ar_switches"));
  return ar;
}

nlohmann::json faults(const std::string& folder, const nlohmann::json& results) {
  if (!results.contains("faults")) return nullptr;
  nlohmann::json fs = results["faults"];
  const CsvTable t = read_table(folder, "fault_destinations");
  for (std::size_t i = 0; i < fs.size(); ++i) {
    nlohmann::json d = rows_where(t, "fault", i);
    for (auto& x : d) {
      x.erase("link");
      for (const char* when : {"last_delivery_before_ns", "first_delivery_after_ns"})
        if (!x.contains(when)) x[when] = nullptr;
    }
    fs[i]["destinations"] = std::move(d);
  }
  return fs;
}

nlohmann::json subnet_manager(const std::string& folder, const nlohmann::json& results) {
  if (!results.contains("subnet_manager")) return nullptr;
  nlohmann::json sm = results["subnet_manager"];
  if (sm.contains("m_key") && find_table(folder, "m_key_violations")) {
    nlohmann::json v = nlohmann::json::object();
    for (const auto& o : table_objects(read_table(folder, "m_key_violations"))) v[o["node"].get<std::string>()] = o["violations"];
    sm["m_key"]["violations"] = std::move(v);
  }
  return sm;
}

nlohmann::json attacks(const std::string& folder, const nlohmann::json& results) {
  if (!results.contains("attacks")) return nullptr;
  nlohmann::json as = results["attacks"];
  const CsvTable t = read_table(folder, "attack_targets");
  for (auto& a : as) {
    const std::string kind = a.value("kind", std::string());
    if (kind != "rogue_smp" && kind != "smp_flood") continue;
    a["targets"] = rows_where(t, "attack", a.value("name", std::string()));
  }
  return as;
}

const std::vector<std::string>& view_members() {
  static const std::vector<std::string> m = {"ports",  "links",          "hca_model", "congestion_control",
                                             "adaptive_routing", "faults", "subnet_manager", "attacks"};
  return m;
}

}  // namespace

std::optional<std::string> find_table(const std::string& folder, const std::string& name) {
  for (bool compressed : {false, true}) {
    const std::filesystem::path p = std::filesystem::path(folder) / table_file_name(name, compressed);
    std::error_code ec;
    if (std::filesystem::is_regular_file(p, ec)) return p.string();
  }
  return std::nullopt;
}

CsvTable read_table(const std::string& folder, const std::string& name) {
  const std::optional<std::string> path = find_table(folder, name);
  if (!path) return {};
  return parse_csv(read_table_file(*path), *path);
}

nlohmann::json read_results_json(const std::string& folder) {
  const std::string path = (std::filesystem::path(folder) / "results.json").string();
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError("cannot read '" + path + "': expected a results folder with its results.json");
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j = nlohmann::json::parse(ss.str(), nullptr, false);
  if (!j.is_object()) throw InputError("'" + path + "': expected a JSON object (results.json)");
  return j;
}

nlohmann::json table_objects(const CsvTable& t) {
  nlohmann::json out = nlohmann::json::array();
  for (const auto& row : t.rows) out.push_back(row_object(t, row));
  return out;
}

nlohmann::json results_member(const std::string& folder, const nlohmann::json& results, const std::string& member,
                              const std::vector<std::pair<std::string, std::string>>& match) {
  if (member == "ports") return port_objects(folder, match);
  if (member == "links") return link_objects(folder);
  if (member == "hca_model") {
    if (!find_table(folder, "hca_model")) return nullptr;
    return table_objects(read_table(folder, "hca_model"));
  }
  if (member == "congestion_control") return congestion_control(folder, results);
  if (member == "adaptive_routing") return adaptive_routing(folder, results);
  if (member == "faults") return faults(folder, results);
  if (member == "subnet_manager") return subnet_manager(folder, results);
  if (member == "attacks") return attacks(folder, results);
  return nullptr;
}

nlohmann::json results_with_tables(const std::string& folder) {
  nlohmann::json j = read_results_json(folder);
  for (const std::string& m : view_members()) {
    nlohmann::json v = results_member(folder, j, m);
    if (!v.is_null()) j[m] = std::move(v);
  }
  return j;
}

std::optional<double> select_in_results(const std::string& folder, const nlohmann::json& results,
                                        const std::vector<JsonSelectorStep>& steps) {
  if (const std::optional<double> v = json_select_number(results, steps)) return v;
  if (steps.empty() || steps.front().member.empty()) return std::nullopt;
  const std::string& member = steps.front().member;
  nlohmann::json view = nlohmann::json::object();
  bool known = false;
  for (const std::string& m : view_members()) known = known || m == member;
  if (known) {
    // A port filter right after "ports" is applied while the ports are read.
    const std::vector<std::pair<std::string, std::string>> none;
    const auto& match = member == "ports" && steps.size() > 1 && !steps[1].match.empty() ? steps[1].match : none;
    view[member] = results_member(folder, results, member, match);
  } else if (!results.contains(member) && find_table(folder, member)) {
    view[member] = table_objects(read_table(folder, member));  // a table by its name: port_vls[...]
  } else {
    return std::nullopt;
  }
  return json_select_number(view, steps);
}

}  // namespace ibfsim
