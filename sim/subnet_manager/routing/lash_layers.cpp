#include "sim/subnet_manager/routing/lash_layers.h"

namespace ibfsim {

LashLayers::LashLayers(std::size_t switches, unsigned layers, std::vector<std::vector<int>> next)
    : n_(switches), next_(std::move(next)), matrix_(static_cast<std::size_t>(layers) * switches * switches, -1) {}

void LashLayers::add_path(std::size_t src, std::size_t dst, unsigned layer) {
  std::size_t sw = src;
  int nx = next(sw, dst);
  int prev = -1;
  while (sw != dst) {
    int& slot = at(layer, sw, static_cast<std::size_t>(nx));
    if (slot < 0) {
      Vertex fresh;
      fresh.temp = true;
      // OpenSM allocates room for (switches - 1) dependencies, zeroed; one more here for safety.
      fresh.deps.resize(n_);
      slot = static_cast<int>(v_.size());
      v_.push_back(std::move(fresh));
    }
    const int v = slot;
    ++v_[v].num_using;
    if (prev >= 0) {
      Vertex& p = v_[prev];
      bool exists = false;
      for (int j = 0; j < p.num_deps; ++j) {
        if (p.deps[j].v == v) {
          exists = true;
          ++p.deps[j].num_used;
        }
      }
      if (!exists && static_cast<std::size_t>(p.num_deps) < p.deps.size()) {
        p.deps[p.num_deps].v = v;
        ++p.deps[p.num_deps].num_used;
        ++p.num_deps;
        if (!p.temp) ++p.num_temp_depend;
      }
    }
    sw = static_cast<std::size_t>(nx);
    if (sw != dst) nx = next(sw, dst);
    prev = v;
  }
}

bool LashLayers::cycle_exists(int start, int current, int visit) {
  if (current >= 0 && v_[current].visiting > 0) return visit > v_[current].visiting && !v_[current].seen;
  if (current < 0) current = start;
  v_[current].visiting = visit;
  bool found = false;
  // The list may change length only between searches; walk it by index as OpenSM does.
  for (int i = 0; i < v_[current].num_deps && !found; ++i) found = cycle_exists(start, v_[current].deps[i].v, visit + 1);
  v_[current].seen = true;
  return found;
}

bool LashLayers::cycle_from_path(std::size_t src, std::size_t dst, unsigned layer) {
  return cycle_exists(at(layer, src, static_cast<std::size_t>(next(src, dst))), -1, 1);
}

void LashLayers::reset_marks(unsigned layer) {
  for (std::size_t i = 0; i < n_; ++i)
    for (std::size_t j = 0; j < n_; ++j)
      if (const int v = at(layer, i, j); v >= 0) {
        v_[v].visiting = 0;
        v_[v].seen = false;
      }
}

void LashLayers::keep_path(std::size_t src, std::size_t dst, unsigned layer) {
  for (std::size_t sw = src; sw != dst;) {
    const std::size_t nx = static_cast<std::size_t>(next(sw, dst));
    Vertex& v = v_[at(layer, sw, nx)];
    if (v.temp) v.temp = false;
    else v.num_temp_depend = 0;
    sw = nx;
  }
}

void LashLayers::undo_path(std::size_t src, std::size_t dst, unsigned layer) {
  for (std::size_t sw = src; sw != dst;) {
    const std::size_t nx = static_cast<std::size_t>(next(sw, dst));
    int& slot = at(layer, sw, nx);
    Vertex& v = v_[slot];
    if (v.temp) {
      slot = -1;
    } else {
      v.num_deps -= v.num_temp_depend;
      v.num_temp_depend = 0;
      --v.num_using;
      for (std::size_t i = static_cast<std::size_t>(v.num_deps); i + 1 < n_; ++i) v.deps[i].num_used = 0;
    }
    sw = nx;
  }
}

void LashLayers::remove_path(std::size_t src, std::size_t dst, unsigned layer) {
  int depend = 0;  // kept from one channel to the next, as in OpenSM
  for (std::size_t sw = src; sw != dst;) {
    const std::size_t nx = static_cast<std::size_t>(next(sw, dst));
    int& slot = at(layer, sw, nx);
    Vertex& v = v_[slot];
    if (v.num_using == 1) {
      slot = -1;
    } else {
      --v.num_using;
      if (nx != dst) {
        const int target = at(layer, nx, static_cast<std::size_t>(next(nx, dst)));
        for (int i = 0; i < v.num_deps; ++i)
          if (v.deps[i].v == target) depend = i;
        if (v.deps[depend].num_used == 1) {
          for (int i = depend; i < v.num_deps - 1; ++i) v.deps[i] = v.deps[i + 1];
          --v.num_deps;
        } else {
          --v.deps[depend].num_used;
        }
      }
    }
    sw = nx;
  }
}

}  // namespace ibfsim
