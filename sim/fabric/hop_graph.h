// The undirected graphs the topology summary (topology_summary.h) searches, switches or clusters
// as vertices and cables as edges, and its two breadth-first searches over them (Boost.Graph).
#pragma once
#include <boost/graph/adjacency_list.hpp>
#include <cstddef>
#include <limits>
#include <vector>

namespace ibfsim {

using HopGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::undirectedS>;
inline constexpr unsigned kHopsUnreached = std::numeric_limits<unsigned>::max();

// Hop distances from a set of vertices (multi-source breadth-first search); kHopsUnreached where
// none reaches.
std::vector<unsigned> distances_from(const HopGraph& g, const std::vector<std::size_t>& sources);

// Breadth-first order of every vertex: from `start`, then from each vertex not reached yet.
std::vector<std::size_t> bfs_order(const HopGraph& g, std::size_t start);

}  // namespace ibfsim
