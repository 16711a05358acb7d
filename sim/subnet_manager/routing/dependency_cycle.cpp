#include "sim/subnet_manager/routing/dependency_cycle.h"

#include <boost/graph/depth_first_search.hpp>
#include <fmt/format.h>

#include <algorithm>

namespace ibfsim {

namespace {

using Vertex = boost::graph_traits<DependencyGraph>::vertex_descriptor;
using Edge = boost::graph_traits<DependencyGraph>::edge_descriptor;

// Stops at the first back edge, which closes a cycle through the DFS tree.
struct CycleFinder : boost::default_dfs_visitor {
  std::vector<Vertex>* parent;
  std::vector<std::size_t>* cycle;
  struct Found {};
  void tree_edge(Edge e, const DependencyGraph& g) const { (*parent)[boost::target(e, g)] = boost::source(e, g); }
  void back_edge(Edge e, const DependencyGraph& g) const {
    const Vertex from = boost::source(e, g), to = boost::target(e, g);
    for (Vertex v = from; v != to; v = (*parent)[v]) cycle->push_back(v);
    cycle->push_back(to);
    std::reverse(cycle->begin(), cycle->end());
    throw Found{};
  }
};

}  // namespace

std::vector<std::size_t> find_dependency_cycle(const DependencyGraph& graph) {
  std::vector<Vertex> parent(boost::num_vertices(graph));
  std::vector<std::size_t> cycle;
  CycleFinder finder;
  finder.parent = &parent;
  finder.cycle = &cycle;
  try {
    boost::depth_first_search(graph, boost::visitor(finder));
  } catch (const CycleFinder::Found&) {
  }
  return cycle;
}

std::string format_dependency_check(const DependencyCheckSummary& s) {
  std::string checked;
  for (unsigned l : s.checked) checked += (checked.empty() ? "" : ",") + std::to_string(l);
  std::string out = fmt::format("deadlock check: {} {}, {} channels, {} dependencies\n",
                                s.checked.size() == 1 ? s.lane : s.lanes, checked.empty() ? "none" : checked,
                                s.channels, s.dependencies);
  for (const DependencyCheckSummary::Cycle& c : s.cycles) {
    out += fmt::format("{} {}: cycle of {} channels:", s.lane, c.lane, c.channels.size());
    for (std::size_t i = 0; i < c.channels.size(); ++i) out += (i ? ", " : " ") + c.channels[i];
    out += "\n";
  }
  if (s.cycles.empty()) {
    out += fmt::format("deadlock check: no cycle in any {}: deadlock-free\n", s.lane);
  } else {
    out += fmt::format("deadlock check: cycles in {} {} ({} channels in cycles): deadlock possible\n", s.cycles.size(),
                       s.cycles.size() == 1 ? s.lane : s.lanes, s.channels_in_cycles);
  }
  return out;
}

}  // namespace ibfsim
