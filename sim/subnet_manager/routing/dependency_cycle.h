// Cycles in a channel dependency graph (vertices: channels, edge a -> b: a packet holding channel
// a waits for channel b). Shared by the deadlock check and the dfsssp engine's layering.
#pragma once
#include <boost/graph/adjacency_list.hpp>

#include <cstddef>
#include <string>
#include <vector>

namespace ibfsim {

using DependencyGraph = boost::adjacency_list<boost::vecS, boost::vecS, boost::directedS>;

// The first cycle a depth-first search meets, as channels in dependency order; empty if none.
std::vector<std::size_t> find_dependency_cycle(const DependencyGraph& graph);

// What a deadlock check found, for its text: the lanes checked (VLs on InfiniBand, priorities on
// Ethernet), the channels and dependencies, and per lane with a cycle its channels by name.
struct DependencyCheckSummary {
  const char* lane = "VL";       // singular, as in "VL 3: cycle of ..."
  const char* lanes = "VLs";     // plural
  std::vector<unsigned> checked;  // ascending
  std::size_t channels = 0, dependencies = 0, channels_in_cycles = 0;
  struct Cycle {
    unsigned lane = 0;
    std::vector<std::string> channels;
  };
  std::vector<Cycle> cycles;
};

// The report `ibfsim routes --deadlock-check` prints: a header line, a line per cycle, a verdict.
std::string format_dependency_check(const DependencyCheckSummary& s);

}  // namespace ibfsim
