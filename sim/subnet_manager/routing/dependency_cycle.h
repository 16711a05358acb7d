// Cycles in a channel dependency graph (vertices: channels, edge a -> b: a packet holding channel
// a waits for channel b). Shared by the deadlock check and the dfsssp engine's layering.
#pragma once
#include <boost/graph/adjacency_list.hpp>

#include <cstddef>
#include <vector>

namespace ibfsim {

using DependencyGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

// The first cycle a depth-first search meets, as channels in dependency order; empty if none.
std::vector<std::size_t> find_dependency_cycle(const DependencyGraph& graph);

}  // namespace ibfsim
