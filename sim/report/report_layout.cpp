#include "sim/report/report_layout.h"

#include <algorithm>
#include <cstdlib>
#include <map>
#include <queue>
#include <regex>

namespace ibfsim {

namespace {

constexpr double kLevelGap = 110;  // layered: vertical distance between levels
constexpr double kSlot = 36;       // layered: horizontal room per node of the widest level
constexpr double kGridStep = kReportGridStep;
constexpr double kMargin = 40;

// The switches' grid coordinates, if the names say them; empty otherwise.
std::vector<std::vector<unsigned>> grid_coordinates(const ReportFabric& f, bool& hypercube) {
  std::vector<std::size_t> switches;
  for (std::size_t i = 0; i < f.nodes.size(); ++i)
    if (f.nodes[i].is_switch) switches.push_back(i);
  std::vector<std::vector<unsigned>> coords(f.nodes.size());
  if (switches.size() < 2) return {};
  // Hypercube: sw + d binary digits, 2^d switches.
  hypercube = true;
  const std::size_t bits = f.nodes[switches[0]].name.size() - 2;
  for (std::size_t s : switches) {
    const std::string& n = f.nodes[s].name;
    if (n.size() != bits + 2 || n.compare(0, 2, "sw") != 0 || n.find_first_not_of("01", 2) != std::string::npos) {
      hypercube = false;
      break;
    }
  }
  if (hypercube && bits >= 2 && bits < 20 && switches.size() == (std::size_t{1} << bits)) {
    const std::size_t xbits = (bits + 1) / 2;
    for (std::size_t s : switches) {
      const unsigned long label = std::strtoul(f.nodes[s].name.c_str() + 2, nullptr, 2);
      coords[s] = {static_cast<unsigned>(label & ((1ul << xbits) - 1)), static_cast<unsigned>(label >> xbits)};
    }
    return coords;
  }
  hypercube = false;
  // Mesh and torus: sw<a>, sw<a>_<b> or sw<a>_<b>_<c>, all with the same number of coordinates.
  static const std::regex name(R"(^sw(\d+)(?:_(\d+))?(?:_(\d+))?$)");
  std::size_t dims = 0;
  for (std::size_t s : switches) {
    std::smatch m;
    if (!std::regex_match(f.nodes[s].name, m, name)) return {};
    std::vector<unsigned> c;
    for (int g = 1; g <= 3; ++g)
      if (m[g].matched) c.push_back(static_cast<unsigned>(std::stoul(m[g].str())));
    if (dims == 0) dims = c.size();
    if (c.size() != dims) return {};
    coords[s] = c;
  }
  return coords;
}

// The first switch each HCA is cabled to (hosts are grouped under it), or -1.
std::vector<long> host_switch(const ReportFabric& f) {
  std::vector<long> sw(f.nodes.size(), -1);
  for (const ReportFabric::Link& l : f.links) {
    const bool as = f.nodes[l.a].is_switch, bs = f.nodes[l.b].is_switch;
    if (!as && bs && sw[l.a] < 0) sw[l.a] = static_cast<long>(l.b);
    if (!bs && as && sw[l.b] < 0) sw[l.b] = static_cast<long>(l.a);
  }
  return sw;
}

}  // namespace

ReportLayout report_layout(const ReportFabric& f, std::size_t max_single_hosts) {
  ReportLayout out;
  const std::size_t n = f.nodes.size();
  out.x.assign(n, 0);
  out.y.assign(n, 0);
  out.level.assign(n, 0);
  out.group.assign(n, -1);
  const std::vector<long> host_sw = host_switch(f);
  std::size_t hosts = 0;
  for (const auto& node : f.nodes) hosts += node.is_switch ? 0 : 1;

  bool hypercube = false;
  const std::vector<std::vector<unsigned>> coords = grid_coordinates(f, hypercube);
  if (!coords.empty()) {
    out.kind = ReportLayout::Kind::kGrid;
    out.hosts_grouped = true;
    unsigned max0 = 0, max1 = 0, max2 = 0;
    for (const auto& c : coords) {
      if (c.size() > 0) max0 = std::max(max0, c[0]);
      if (c.size() > 1) max1 = std::max(max1, c[1]);
      if (c.size() > 2) max2 = std::max(max2, c[2]);
    }
    // A third dimension: its slices side by side, a gap between them.
    for (std::size_t i = 0; i < n; ++i) {
      if (!f.nodes[i].is_switch) continue;
      const auto& c = coords[i];
      const double gx = c[0] + (c.size() > 2 ? c[2] * (max0 + 2.0) : 0.0);
      const double gy = c.size() > 1 ? c[1] : 0;
      out.x[i] = kMargin + gx * kGridStep;
      out.y[i] = kMargin + gy * kGridStep;
    }
    for (std::size_t i = 0; i < n; ++i) {
      if (f.nodes[i].is_switch) continue;
      out.group[i] = host_sw[i];
      if (host_sw[i] >= 0) {  // the group box sits below and right of its switch
        out.x[i] = out.x[static_cast<std::size_t>(host_sw[i])] + kGridStep * 0.3;
        out.y[i] = out.y[static_cast<std::size_t>(host_sw[i])] + kGridStep * 0.35;
      }
    }
    const double cols = max0 + 1 + (max2 > 0 ? max2 * (max0 + 2.0) : 0.0);
    out.width = 2 * kMargin + cols * kGridStep;
    out.height = 2 * kMargin + (max1 + 1) * kGridStep;
    return out;
  }

  // Layered: switches by breadth-first distance from the switches that hold hosts.
  out.kind = ReportLayout::Kind::kLayered;
  out.hosts_grouped = hosts > max_single_hosts;
  std::vector<std::vector<std::size_t>> adj(n);
  for (const ReportFabric::Link& l : f.links)
    if (f.nodes[l.a].is_switch && f.nodes[l.b].is_switch) {
      adj[l.a].push_back(l.b);
      adj[l.b].push_back(l.a);
    }
  std::vector<int> level(n, -1);
  std::queue<std::size_t> q;
  for (std::size_t i = 0; i < n; ++i)
    if (!f.nodes[i].is_switch) {
      level[i] = 0;
      if (host_sw[i] >= 0 && level[static_cast<std::size_t>(host_sw[i])] < 0) {
        level[static_cast<std::size_t>(host_sw[i])] = 1;
        q.push(static_cast<std::size_t>(host_sw[i]));
      }
    }
  // Every switch that holds a host is on level 1, also when it is its host's second switch.
  for (const ReportFabric::Link& l : f.links) {
    for (auto [s, h] : {std::pair{l.a, l.b}, std::pair{l.b, l.a}})
      if (f.nodes[s].is_switch && !f.nodes[h].is_switch && level[s] < 0) {
        level[s] = 1;
        q.push(s);
      }
  }
  while (!q.empty()) {
    const std::size_t s = q.front();
    q.pop();
    for (std::size_t t : adj[s])
      if (level[t] < 0) {
        level[t] = level[s] + 1;
        q.push(t);
      }
  }
  int top = 1;
  for (int l : level) top = std::max(top, l);
  for (std::size_t i = 0; i < n; ++i)
    if (level[i] < 0) level[i] = top + 1;  // switches no host reaches
  for (int l : level) top = std::max(top, l);
  out.level = level;
  std::vector<std::vector<std::size_t>> rows(static_cast<std::size_t>(top) + 1);
  for (std::size_t i = 0; i < n; ++i) {
    if (!f.nodes[i].is_switch && out.hosts_grouped) continue;
    rows[static_cast<std::size_t>(level[i])].push_back(i);
  }
  // Grouped hosts: one box per switch holding hosts, on level 0.
  std::map<long, std::size_t> group_box;  // switch -> the first host of its group (drawn for the group)
  if (out.hosts_grouped) {
    for (std::size_t i = 0; i < n; ++i)
      if (!f.nodes[i].is_switch) {
        out.group[i] = host_sw[i];
        if (!group_box.count(host_sw[i])) {
          group_box[host_sw[i]] = i;
          rows[0].push_back(i);
        }
      }
  }
  std::size_t widest = 1;
  for (const auto& r : rows) widest = std::max(widest, r.size());
  out.width = 2 * kMargin + static_cast<double>(widest) * kSlot;
  out.height = 2 * kMargin + top * kLevelGap + (out.hosts_grouped ? 20 : 60);  // room for host names
  auto place = [&](std::vector<std::size_t>& row, int lv) {
    for (std::size_t k = 0; k < row.size(); ++k) {
      out.x[row[k]] = kMargin + (static_cast<double>(k) + 0.5) * (out.width - 2 * kMargin) / static_cast<double>(row.size());
      out.y[row[k]] = kMargin + (top - lv) * kLevelGap;
    }
  };
  // Level 1 in declaration order; hosts under their switch; higher levels by the mean position of
  // their neighbours below (one barycentre pass), so trees drawn from any input stay untangled.
  place(rows[1], 1);
  std::vector<double> key(n, 0);
  for (std::size_t i : rows[0]) key[i] = host_sw[i] >= 0 ? out.x[static_cast<std::size_t>(host_sw[i])] : 1e18;
  std::stable_sort(rows[0].begin(), rows[0].end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
  place(rows[0], 0);
  for (int lv = 2; lv <= top; ++lv) {
    auto& row = rows[static_cast<std::size_t>(lv)];
    for (std::size_t s : row) {
      double sum = 0;
      int count = 0;
      for (std::size_t t : adj[s])
        if (level[t] == lv - 1) sum += out.x[t], ++count;
      key[s] = count ? sum / count : 1e18;
    }
    std::stable_sort(row.begin(), row.end(), [&](std::size_t a, std::size_t b) { return key[a] < key[b]; });
    place(row, lv);
  }
  // Every grouped host is drawn where its group is.
  for (std::size_t i = 0; i < n; ++i)
    if (out.group[i] >= 0) {
      const std::size_t box = group_box[out.group[i]];
      out.x[i] = out.x[box];
      out.y[i] = out.y[box];
    }
  return out;
}

}  // namespace ibfsim
