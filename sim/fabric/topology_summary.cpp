// The topology summary (topology_summary.h): counts, radix use, the figures of their own files
// (diameter: topology_diameter.h, bisection: topology_bisection.h, warnings:
// topology_summary_warnings.h), and the text `ibfsim topo` prints.
#include "sim/fabric/topology_summary.h"

#include "sim/fabric/topology_subnets.h"

#include <fmt/format.h>

#include <map>

#include "sim/fabric/dot_format.h"  // format_length_mm
#include "sim/fabric/topology_bisection.h"
#include "sim/fabric/topology_diameter.h"
#include "sim/fabric/topology_summary_warnings.h"

namespace ibfsim {

namespace {

// Per switch type (port count), its switches and their cabled ports.
std::vector<RadixUse> radix_use(const Topology& topo, const Topology::PortCables& cables_at) {
  std::map<unsigned, RadixUse> radix;
  for (std::size_t sw : topo.switches()) {
    const TopoNode& n = topo.nodes[sw];
    RadixUse& r = radix[n.num_ports];
    r.ports_per_switch = n.num_ports;
    ++r.switches;
    r.ports_total += n.num_ports;
    for (unsigned p = 1; p <= n.num_ports; ++p) {
      if (!cables_at[sw][p]) continue;
      ++r.ports_used;
    }
  }
  std::vector<RadixUse> out;
  for (auto& [ports, r] : radix) out.push_back(r);
  return out;
}

}  // namespace

TopologySummary summarize_topology(const Topology& topo) {
  TopologySummary s;
  const auto cables_at = topo.port_cables();
  std::vector<std::size_t> hosts;
  std::vector<std::string> uncabled;
  for (std::size_t h : topo.hcas()) {
    ++s.hcas;
    bool cabled = false;
    for (unsigned p = 1; p <= topo.nodes[h].num_ports; ++p) cabled = cabled || cables_at[h][p].has_value();
    if (cabled) {
      hosts.push_back(h);
    } else {
      uncabled.push_back(topo.nodes[h].name);
    }
  }
  s.hosts = hosts.size();
  s.cables = topo.cables.size();
  s.switches = topo.switches().size();
  s.radix = radix_use(topo, cables_at);
  for (const TopoCable& c : topo.cables) {
    const bool both_switches =
        topo.nodes[c.node_a].type == NodeType::kSwitch && topo.nodes[c.node_b].type == NodeType::kSwitch;
    const bool router = topo.nodes[c.node_a].type == NodeType::kRouter || topo.nodes[c.node_b].type == NodeType::kRouter;
    ++(both_switches ? s.switch_cables : router ? s.router_cables : s.host_cables);
    // An Ethernet cable by its speed (keys below 0: the speed - 100), ahead of the InfiniBand rates.
    ++s.rates[c.ethernet_speed ? std::pair<int, unsigned>{static_cast<int>(*c.ethernet_speed) - 100, 0}
                               : std::pair<int, unsigned>{static_cast<int>(c.rate.speed), c.rate.lanes}];
    ++s.lengths_mm[c.length_mm];
  }
  s.routers = topo.routers().size();
  if (s.routers > 0) {
    const TopologySubnets sub = topology_subnets(topo);
    for (std::size_t k = 0; k < sub.count(); ++k) s.subnets.emplace_back(sub.prefix[k], sub.nodes[k].size());
  }
  compute_diameter(topo, cables_at, s);
  if (hosts.size() >= 2) s.bisection = estimate_bisection(topo, hosts, cables_at);
  s.warnings = topology_summary_warnings(topo, cables_at, uncabled, s.rates.size());
  return s;
}

std::string format_topology_summary(const Topology& topo, const TopologySummary& s) {
  std::string out;
  out += fmt::format("hosts: {} HCAs", s.hcas);
  if (s.hosts != s.hcas) out += fmt::format(" ({} with a cable)", s.hosts);
  out += fmt::format("\nswitches: {}\n", s.switches);
  if (s.routers > 0) {
    out += fmt::format("routers: {}, joining {} subnets:", s.routers, s.subnets.size());
    for (std::size_t k = 0; k < s.subnets.size(); ++k) {
      const std::uint64_t p = s.subnets[k].first;
      out += fmt::format("{} {:x}:{:x}:{:x}:{:x}::/64 ({} nodes)", k == 0 ? "" : ",", p >> 48, (p >> 32) & 0xFFFF,
                         (p >> 16) & 0xFFFF, p & 0xFFFF, s.subnets[k].second);
    }
    out += "\n";
  }
  if (s.routers > 0)
    out += fmt::format("cables: {} ({} to HCAs, {} to routers, {} between switches)\n", s.cables, s.host_cables,
                       s.router_cables, s.switch_cables);
  else
    out += fmt::format("cables: {} ({} to HCAs, {} between switches)\n", s.cables, s.host_cables, s.switch_cables);
  if (!s.rates.empty()) {
    std::string rates;
    for (const auto& [key, n] : s.rates) {
      const std::string name = key.first < 0 ? ethernet_speed_info(static_cast<EthernetSpeed>(key.first + 100)).name
                                             : LinkRate{static_cast<LinkSpeed>(key.first), key.second}.name();
      rates += fmt::format("{}{} x {}", rates.empty() ? "" : ", ", n, name);
    }
    std::string lengths;
    for (const auto& [mm, n] : s.lengths_mm) lengths += fmt::format("{}{} x {}", lengths.empty() ? "" : ", ", n, format_length_mm(mm));
    out += fmt::format("link rates: {}\ncable lengths: {}\n", rates, lengths);
  }
  if (!s.radix.empty()) {
    out += "radix use:\n";
    for (const RadixUse& r : s.radix) {
      out += fmt::format("  {}-port switches: {}, ports used {}/{} ({:.0f}%)\n", r.ports_per_switch, r.switches,
                         r.ports_used, r.ports_total,
                         100.0 * static_cast<double>(r.ports_used) / static_cast<double>(r.ports_total));
    }
  }
  if (s.diameter) {
    const unsigned n = s.diameter->switches;
    out += fmt::format("diameter: {} switch{} crossed, {} switch-to-switch hop{} (between {} and {})\n", n,
                       n == 1 ? "" : "es", n - 1, n == 2 ? "" : "s", topo.nodes[s.diameter->host_a].name,
                       topo.nodes[s.diameter->host_b].name);
  } else {
    out += "diameter: none (fewer than two hosts that reach each other)\n";
  }
  switch (s.bisection.method) {
    case BisectionMethod::kNone:
      out += "bisection: none (fewer than two hosts)\n";
      break;
    case BisectionMethod::kFatTreeExact:
    case BisectionMethod::kHeuristic: {
      const bool exact = s.bisection.method == BisectionMethod::kFatTreeExact;
      out += fmt::format("bisection: {}{} cable{}, {:.1f} Gb/s", exact ? "" : "at most ", s.bisection.cables,
                         s.bisection.cables == 1 ? "" : "s", s.bisection.gbps);
      if (s.bisection.of_full) out += fmt::format(", {:.2f} of full bisection", *s.bisection.of_full);
      out += exact ? " (exact: fat tree of one or two levels)\n" : " (heuristic: breadth-first split and Kernighan-Lin)\n";
      break;
    }
  }
  if (s.warnings.empty()) {
    out += "warnings: none\n";
  } else {
    out += "warnings:\n";
    for (const std::string& w : s.warnings) out += "  - " + w + "\n";
  }
  return out;
}

}  // namespace ibfsim
