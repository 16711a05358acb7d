// lash's per-layer channel dependency graphs, as osm_ucast_lash.c keeps them (lash.h tells the
// algorithm): a vertex per (layer, switch, next switch) channel in use, each with its ordered list
// of dependencies (the channels paths take next) and their use counts; paths are added tentatively
// (new vertices and dependencies marked temporary), kept or undone, and removed. The quirks of
// OpenSM's bookkeeping are kept, because the depth-first cycle search walks the dependency lists in
// their order: use counts of existing dependencies are not undone with a tentative path, a
// removed dependency leaves its count in the slot behind the list's end, and a dependency not
// found on removal acts on the slot found last.
#pragma once
#include <cstddef>
#include <vector>

namespace ibfsim {

class LashLayers {
 public:
  // `next(s, d)`: the switch after s on the route from s to d (s != d).
  LashLayers(std::size_t switches, unsigned layers, std::vector<std::vector<int>> next);

  // generate_cdg_for_sp: adds the path src -> dst to `layer` (new parts temporary).
  void add_path(std::size_t src, std::size_t dst, unsigned layer);
  // Whether the depth-first search from the path's first channel finds a cycle. Two searches
  // (one per path of a pair) share their marks until reset_marks, as in OpenSM.
  bool cycle_from_path(std::size_t src, std::size_t dst, unsigned layer);
  void reset_marks(unsigned layer);
  // set_temp_depend_to_permanent_for_sp / remove_temp_depend_for_sp / remove_semipermanent_depend_for_sp.
  void keep_path(std::size_t src, std::size_t dst, unsigned layer);
  void undo_path(std::size_t src, std::size_t dst, unsigned layer);
  void remove_path(std::size_t src, std::size_t dst, unsigned layer);

 private:
  struct Dep {
    int v = -1;
    int num_used = 0;
  };
  struct Vertex {
    bool temp = false;
    bool seen = false;
    int visiting = 0;
    int num_temp_depend = 0;
    int num_using = 0;
    int num_deps = 0;
    std::vector<Dep> deps;
  };
  int& at(unsigned layer, std::size_t s, std::size_t t) { return matrix_[(layer * n_ + s) * n_ + t]; }
  int next(std::size_t s, std::size_t d) const { return next_[s][d]; }
  bool cycle_exists(int start, int current, int visit);

  std::size_t n_;
  std::vector<std::vector<int>> next_;
  std::vector<int> matrix_;  // [layer][switch][next switch] -> vertex, or -1
  std::vector<Vertex> v_;    // every vertex ever made (freed ones are never reused)
};

}  // namespace ibfsim
