#include "sim/report/report_ports.h"

#include <algorithm>
#include <map>
#include <optional>
#include <variant>

namespace ibfsim {

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::size_t kind_of(const StatsSnapshot& s, const std::string& name) {
  for (std::size_t k = 0; k < s.kinds.size(); ++k)
    if (s.kinds[k].name == name) return k;
  return kNone;
}

std::size_t stat_of(const StatsSnapshot& s, std::size_t kind, const std::string& name) {
  if (kind == kNone) return kNone;
  const auto& stats = s.kinds[kind].stats;
  for (std::size_t i = 0; i < stats.size(); ++i)
    if (stats[i].name == name) return i;
  return kNone;
}

std::optional<double> number(const StatRow& row, std::size_t stat) {
  if (stat == kNone) return std::nullopt;
  const StatValue& v = row.values[stat];
  if (const auto* n = std::get_if<std::uint64_t>(&v)) return static_cast<double>(*n);
  if (const auto* d = std::get_if<double>(&v)) return *d;
  return std::nullopt;
}

std::string text(const StatValue& v) {
  if (const auto* t = std::get_if<std::string>(&v)) return *t;
  if (const auto* n = std::get_if<std::uint64_t>(&v)) return std::to_string(*n);
  return "";
}

}  // namespace

ReportPorts report_ports(const StatsSnapshot& s, double window_ns, double run_ns) {
  ReportPorts out;
  const std::size_t ports = kind_of(s, "ports"), vls = kind_of(s, "vls"), discards = kind_of(s, "discards"),
                    window = kind_of(s, "window.credit_stall_ns"), marks = kind_of(s, "switch_ports");
  const std::size_t peer = stat_of(s, ports, "peer"), state = stat_of(s, ports, "state"),
                    tx = stat_of(s, ports, "tx_packets"), rx = stat_of(s, ports, "rx_packets"),
                    run_busy = stat_of(s, ports, "run_busy_fraction"), busy = stat_of(s, ports, "window.busy_fraction"),
                    vl_stall = stat_of(s, vls, "credit_stall_ns"), discarded = stat_of(s, discards, "packets"),
                    window_stall = stat_of(s, window, "credit_stall_ns"), fecn = stat_of(s, marks, "fecn_marked");
  std::vector<std::size_t> of_row(s.rows.size(), kNone);  // a port's row -> its entry
  std::vector<bool> windowed;
  std::vector<double> run_stall, window_stall_max;
  std::map<std::pair<std::string, unsigned>, std::size_t> by_name;
  for (std::size_t r = 0; r < s.rows.size(); ++r) {
    const StatRow& row = s.rows[r];
    if (row.kind != ports) continue;
    ReportPort p;
    p.node = text(row.keys[0]);
    p.port = static_cast<unsigned>(std::get<std::uint64_t>(row.keys[1]));
    if (peer != kNone) p.peer = text(row.values[peer]);
    if (state != kNone) p.state = text(row.values[state]);
    p.tx_packets = static_cast<std::uint64_t>(number(row, tx).value_or(0));
    p.rx_packets = static_cast<std::uint64_t>(number(row, rx).value_or(0));
    const std::optional<double> in_window = number(row, busy);
    windowed.push_back(in_window.has_value());
    out.windowed = out.windowed || in_window.has_value();
    p.util = in_window ? *in_window : number(row, run_busy).value_or(0);
    of_row[r] = out.ports.size();
    by_name[{p.node, p.port}] = out.ports.size();
    out.ports.push_back(std::move(p));
  }
  run_stall.assign(out.ports.size(), 0);
  window_stall_max.assign(out.ports.size(), 0);
  for (const StatRow& row : s.rows) {
    if (row.kind == marks) {
      const auto it = by_name.find({text(row.keys[0]), static_cast<unsigned>(std::get<std::uint64_t>(row.keys[1]))});
      if (it != by_name.end()) out.ports[it->second].fecn = number(row, fecn).value_or(0);
      continue;
    }
    if (row.parent == kNoStatParent) continue;
    const std::size_t i = of_row[row.parent];
    if (i == kNone) continue;
    if (row.kind == discards) out.ports[i].discards += static_cast<std::uint64_t>(number(row, discarded).value_or(0));
    else if (row.kind == vls && run_ns > 0) run_stall[i] = std::max(run_stall[i], number(row, vl_stall).value_or(0) / run_ns);
    else if (row.kind == window && window_ns > 0)
      window_stall_max[i] = std::max(window_stall_max[i], number(row, window_stall).value_or(0) / window_ns);
  }
  for (std::size_t i = 0; i < out.ports.size(); ++i) out.ports[i].stall = windowed[i] ? window_stall_max[i] : run_stall[i];
  return out;
}

}  // namespace ibfsim
