// The topology summary's warnings (topology_summary_warnings.h).
#include "sim/fabric/topology_summary_warnings.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibfsim {

namespace {

// Up to five names, then how many more.
std::string some(const std::vector<std::string>& names) {
  std::string out;
  for (std::size_t i = 0; i < names.size() && i < 5; ++i) out += (i ? ", " : "") + names[i];
  if (names.size() > 5) out += fmt::format(" and {} more", names.size() - 5);
  return out;
}

}  // namespace

std::vector<std::string> topology_summary_warnings(const Topology& topo, const Topology::PortCables& cables_at,
                                                   const std::vector<std::string>& uncabled, std::size_t rates) {
  std::vector<std::string> warnings;
  // Switches whose host links carry more than their switch links.
  std::size_t oversubscribed = 0;
  double worst_ratio = 0;
  for (std::size_t sw : topo.switches()) {
    const TopoNode& n = topo.nodes[sw];
    double host_gbps = 0, switch_gbps = 0;
    for (unsigned p = 1; p <= n.num_ports; ++p) {
      if (!cables_at[sw][p]) continue;
      const TopoCable& c = topo.cables[*cables_at[sw][p]];
      (topo.nodes[c.far_end(sw).node].type == NodeType::kSwitch ? switch_gbps : host_gbps) += c.data_gbps();
    }
    if (host_gbps > 0 && switch_gbps > 0 && host_gbps > switch_gbps * (1 + 1e-9)) {
      ++oversubscribed;
      worst_ratio = std::max(worst_ratio, host_gbps / switch_gbps);
    }
  }
  if (!uncabled.empty()) {
    warnings.push_back(fmt::format("{} HCA{} without a cable: {}", uncabled.size(), uncabled.size() == 1 ? "" : "s",
                                   some(uncabled)));
  }
  // The topology's own checks: a fabric cut in parts, links that negotiate down (topology.h).
  for (std::string& w : topology_warnings(topo)) warnings.push_back(std::move(w));
  if (rates > 1) {
    warnings.push_back(fmt::format("cables run at {} different rates; a path is as fast as its slowest cable", rates));
  }
  if (oversubscribed > 0) {
    warnings.push_back(fmt::format("{} switch{} more host bandwidth than switch-link bandwidth (up to {:.2f}:1)",
                                   oversubscribed, oversubscribed == 1 ? " has" : "es have", worst_ratio));
  }
  std::vector<std::string> long_names;
  for (const TopoNode& n : topo.nodes)
    if (n.name.size() > 64) long_names.push_back(n.name);
  if (!long_names.empty()) {
    warnings.push_back(fmt::format("{} node name{} longer than 64 characters, more than an IB node description "
                                   "holds: {}",
                                   long_names.size(), long_names.size() == 1 ? " is" : "s are", some(long_names)));
  }
  return warnings;
}

}  // namespace ibfsim
