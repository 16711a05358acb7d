// Breadth-first searches of the topology summary's graphs (hop_graph.h).
#include "sim/fabric/hop_graph.h"

#include <boost/graph/breadth_first_search.hpp>
#include <boost/graph/visitors.hpp>
#include <boost/pending/queue.hpp>

namespace ibfsim {

std::vector<unsigned> distances_from(const HopGraph& g, const std::vector<std::size_t>& sources) {
  std::vector<unsigned> dist(boost::num_vertices(g), kHopsUnreached);
  for (std::size_t s : sources) dist[s] = 0;
  std::vector<boost::default_color_type> color(boost::num_vertices(g));
  boost::queue<HopGraph::vertex_descriptor> q;
  boost::breadth_first_search(
      g, sources.begin(), sources.end(), q,
      boost::make_bfs_visitor(boost::record_distances(dist.data(), boost::on_tree_edge())),
      boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g)));
  return dist;
}

std::vector<std::size_t> bfs_order(const HopGraph& g, std::size_t start) {
  struct Recorder : boost::default_bfs_visitor {
    std::vector<std::size_t>* order;
    void discover_vertex(HopGraph::vertex_descriptor v, const HopGraph&) const { order->push_back(v); }
  };
  const std::size_t n = boost::num_vertices(g);
  std::vector<std::size_t> order;
  order.reserve(n);
  std::vector<boost::default_color_type> color(n, boost::white_color);
  auto color_map = boost::make_iterator_property_map(color.begin(), boost::get(boost::vertex_index, g));
  Recorder rec;
  rec.order = &order;
  boost::queue<HopGraph::vertex_descriptor> q;
  boost::breadth_first_visit(g, start, q, rec, color_map);
  for (std::size_t v = 0; v < n; ++v) {
    if (color[v] == boost::white_color) boost::breadth_first_visit(g, v, q, rec, color_map);
  }
  return order;
}

}  // namespace ibfsim
