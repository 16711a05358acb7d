// complib's cl_heap (OpenSM 3.3.23, complib/cl_heap.c) with branching factor 4, operation for
// operation: the engines built on it (sssp, dfsssp, nue) break ties between equal keys exactly where
// its sift-up and sift-down leave them. Elements are small integers (vertex indices); like
// OpenSM's index-update callback, the heap writes each element's current position into
// `position[element]` whenever it moves, and a deleted element keeps the position it was last
// given (as OpenSM's callers see it).
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ibfsim {

class ComplibHeap {
 public:
  static constexpr std::size_t npos = static_cast<std::size_t>(-1);

  explicit ComplibHeap(std::vector<std::size_t>& position) : pos_(position) {}

  std::size_t size() const { return elems_.size(); }

  // cl_heap_insert.
  void insert(std::uint64_t key, std::size_t element) {
    elems_.push_back({key, element});
    pos_[element] = elems_.size() - 1;
    up(elems_.size() - 1);
  }
  // cl_heap_modify_key; false if index is out of range.
  bool modify_key(std::uint64_t key, std::size_t index) {
    if (index >= elems_.size()) return false;
    const std::uint64_t old = elems_[index].key;
    elems_[index].key = key;
    if (key < old) up(index);
    else if (key > old) down(index);
    return true;
  }
  // cl_heap_delete: the element at `index`, or npos if the heap is empty or index out of range.
  std::size_t remove(std::size_t index) {
    if (elems_.empty() || index >= elems_.size()) return npos;
    if (elems_.size() == 1) {
      const std::size_t only = elems_.back().element;
      elems_.pop_back();
      return only;
    }
    const Elem tmp = elems_.back();
    const std::size_t last = elems_.size() - 1;
    elems_[last] = elems_[index];
    set(last);
    elems_[index] = tmp;
    set(index);
    const std::size_t removed = elems_[last].element;
    elems_.pop_back();
    // The last element itself: nothing to sift (complib's sift at the old end moves nothing while
    // the heap property holds).
    if (index == elems_.size()) return removed;
    if (index == 0) {
      down(0);
    } else {
      const std::size_t parent = (index - 1) / kD;
      if (elems_[parent].key < elems_[index].key) down(index);
      else if (elems_[parent].key > elems_[index].key) up(index);
    }
    return removed;
  }
  // cl_heap_extract_root.
  std::size_t extract_root() { return remove(0); }

 private:
  struct Elem {
    std::uint64_t key;
    std::size_t element;
  };
  static constexpr std::size_t kD = 4;
  void set(std::size_t i) { pos_[elems_[i].element] = i; }
  void down(std::size_t index) {
    const Elem tmp = elems_[index];
    std::size_t parent = index;
    bool swapped = false;
    while (parent * kD + 1 < elems_.size()) {
      const std::size_t first = parent * kD + 1;
      std::size_t swap_child = first;
      for (std::size_t child = first + 1; child < first + kD && child < elems_.size(); ++child)
        if (elems_[child].key <= elems_[swap_child].key) swap_child = child;  // the last of equal minima
      if (tmp.key > elems_[swap_child].key) {
        elems_[parent] = elems_[swap_child];
        set(parent);
        parent = swap_child;
        swapped = true;
      } else {
        break;
      }
    }
    if (swapped) {
      elems_[parent] = tmp;
      set(parent);
    }
  }
  void up(std::size_t index) {
    if (index == 0) return;
    const Elem tmp = elems_[index];
    std::size_t parent = index, swap_child = 0;
    bool swapped = false;
    do {
      const std::size_t child = parent;
      parent = (child - 1) / kD;
      if (tmp.key < elems_[parent].key) {
        elems_[child] = elems_[parent];
        set(child);
        swap_child = parent;
        swapped = true;
      } else {
        break;
      }
    } while (parent > 0);
    if (swapped) {
      elems_[swap_child] = tmp;
      set(swap_child);
    }
  }

  std::vector<std::size_t>& pos_;
  std::vector<Elem> elems_;
};

}  // namespace ibfsim
