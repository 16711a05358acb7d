#include "sim/report/report_ports.h"

#include <algorithm>
#include <map>
#include <optional>
#include <unordered_map>
#include <variant>

namespace ibfsim {

namespace {

constexpr std::size_t kNone = static_cast<std::size_t>(-1);

std::size_t kind_of(const std::vector<StatKindInfo>& kinds, const std::string& name) {
  for (std::size_t k = 0; k < kinds.size(); ++k)
    if (kinds[k].name == name) return k;
  return kNone;
}

std::size_t stat_of(const std::vector<StatKindInfo>& kinds, std::size_t kind, const std::string& name) {
  if (kind == kNone) return kNone;
  const auto& stats = kinds[kind].stats;
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

unsigned port_number(const StatValue& v) {
  const auto* n = std::get_if<std::uint64_t>(&v);
  return n ? static_cast<unsigned>(*n) : 0;
}

// Gathers the ports' figures from the rows, given in order (a port's row before its VLs' and
// discards' rows).
class Gather {
 public:
  explicit Gather(const std::vector<StatKindInfo>& k)
      : ports_(kind_of(k, "ports")),
        vls_(kind_of(k, "vls")),
        discards_(kind_of(k, "discards")),
        window_(kind_of(k, "window.credit_stall_ns")),
        marks_(kind_of(k, "switch_ports")),
        peer_(stat_of(k, ports_, "peer")),
        state_(stat_of(k, ports_, "state")),
        tx_(stat_of(k, ports_, "tx_packets")),
        rx_(stat_of(k, ports_, "rx_packets")),
        run_busy_(stat_of(k, ports_, "run_busy_fraction")),
        busy_(stat_of(k, ports_, "window.busy_fraction")),
        vl_stall_(stat_of(k, vls_, "credit_stall_ns")),
        discarded_(stat_of(k, discards_, "packets")),
        window_stall_(stat_of(k, window_, "credit_stall_ns")),
        fecn_(stat_of(k, marks_, "fecn_marked")) {}

  void add(std::size_t index, const StatRow& row) {
    if (row.kind == ports_) {
      ReportPort p;
      p.node = text(row.keys[0]);
      p.port = port_number(row.keys[1]);
      if (peer_ != kNone) p.peer = text(row.values[peer_]);
      if (state_ != kNone) p.state = text(row.values[state_]);
      p.tx_packets = static_cast<std::uint64_t>(number(row, tx_).value_or(0));
      p.rx_packets = static_cast<std::uint64_t>(number(row, rx_).value_or(0));
      const std::optional<double> in_window = number(row, busy_);
      windowed_.push_back(in_window.has_value());
      out_.windowed = out_.windowed || in_window.has_value();
      p.util = in_window ? *in_window : number(row, run_busy_).value_or(0);
      of_row_[index] = out_.ports.size();
      by_name_[{p.node, p.port}] = out_.ports.size();
      out_.ports.push_back(std::move(p));
      run_stall_.push_back(0);
      window_stall_max_.push_back(0);
      return;
    }
    if (row.kind == marks_) {
      const auto it = by_name_.find({text(row.keys[0]), port_number(row.keys[1])});
      if (it != by_name_.end()) out_.ports[it->second].fecn = number(row, fecn_).value_or(0);
      return;
    }
    if (row.parent == kNoStatParent) return;
    const auto it = of_row_.find(row.parent);
    if (it == of_row_.end()) return;
    const std::size_t i = it->second;
    if (row.kind == discards_) out_.ports[i].discards += static_cast<std::uint64_t>(number(row, discarded_).value_or(0));
    else if (row.kind == vls_) run_stall_[i] = std::max(run_stall_[i], number(row, vl_stall_).value_or(0));
    else if (row.kind == window_) window_stall_max_[i] = std::max(window_stall_max_[i], number(row, window_stall_).value_or(0));
  }

  ReportPorts finish(double window_ns, double run_ns) {
    for (std::size_t i = 0; i < out_.ports.size(); ++i) {
      const double stall_ns = windowed_[i] ? window_stall_max_[i] : run_stall_[i];
      const double over = windowed_[i] ? window_ns : run_ns;
      out_.ports[i].stall = over > 0 ? stall_ns / over : 0;
    }
    return std::move(out_);
  }

 private:
  const std::size_t ports_, vls_, discards_, window_, marks_;
  const std::size_t peer_, state_, tx_, rx_, run_busy_, busy_, vl_stall_, discarded_, window_stall_, fecn_;
  ReportPorts out_;
  std::vector<bool> windowed_;
  std::vector<double> run_stall_, window_stall_max_;  // ns: the worst VL's
  std::unordered_map<std::size_t, std::size_t> of_row_;  // a port's row -> its entry
  std::map<std::pair<std::string, unsigned>, std::size_t> by_name_;
};

}  // namespace

ReportPorts report_ports(const StatsSnapshot& s, double window_ns, double run_ns) {
  Gather g(s.kinds);
  for (std::size_t r = 0; r < s.rows.size(); ++r) g.add(r, s.rows[r]);
  return g.finish(window_ns, run_ns);
}

ReportPorts report_ports(const StatsRegistry& registry, double window_ns, double run_ns) {
  const std::vector<StatKindInfo> kinds = registry.kind_infos();
  Gather g(kinds);
  registry.read_rows(kPortsCsv | kPortVlsCsv | kDiscardsCsv | kPortUtilizationCsv | kCreditStallCsv | kCcSwitchPortsCsv,
                     [&g](std::size_t index, const StatRow& row) { g.add(index, row); });
  return g.finish(window_ns, run_ns);
}

}  // namespace ibfsim
