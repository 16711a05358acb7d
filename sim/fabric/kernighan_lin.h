// Kernighan-Lin refinement of a two-way split of weighted clusters that keeps side A's weight:
// single moves of clusters of weight 0 and swaps of two clusters of equal weight. Each pass makes
// the best move (even a bad one), locks what moved, and in the end keeps the best prefix. The
// topology summary's heuristic bisection (topology_bisection.h) refines its breadth-first splits
// with it.
#pragma once
#include <cstddef>
#include <utility>
#include <vector>

namespace ibfsim {

class KernighanLin {
 public:
  // adj: per cluster, (neighbour, cables) with no repeats and no self entries. `side` (by
  // cluster, 1 for side A) is refined in place.
  KernighanLin(const std::vector<std::vector<std::pair<std::size_t, long long>>>& adj, const std::vector<std::size_t>& weight,
               std::vector<char>& side);

  // Passes until one gains nothing, at most max_passes.
  void run(int max_passes);

 private:
  void move(std::size_t c);
  long long cables_between(std::size_t a, std::size_t b) const;
  long long one_pass();  // the cables it saved

  const std::vector<std::vector<std::pair<std::size_t, long long>>>& adj_;
  const std::vector<std::size_t>& weight_;
  std::vector<char>& side_;
  std::vector<long long> d_;  // cables to the other side minus cables to its own side
};

}  // namespace ibfsim
