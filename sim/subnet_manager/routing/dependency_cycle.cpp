#include "sim/subnet_manager/routing/dependency_cycle.h"

#include <boost/graph/depth_first_search.hpp>

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

}  // namespace ibfsim
