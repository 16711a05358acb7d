// Receiver lane deskew and lane reversal.
//
// The lanes of a link are separate wires; each arrives with its own delay (skew), a whole number
// of code units once each lane has found its symbol or block boundaries. The transmitter starts
// every ordered set (SKIP, TS1/TS2) on all lanes at the same edge, so the first unit of an ordered
// set (COM on 8b/10b, the SKIP or training block on 64b/66b: the "marker") marks the same edge on
// every lane.
//
// The deskewer keeps a FIFO per lane and numbers the units of each lane as they arrive (all lanes
// start counting at the same moment, so a unit's number is its arrival time in unit times).
// Until aligned, it drops units from the front of each lane until a marker is there; a marker that
// no other lane can match within `tolerance` units (another lane's marker, or what it has received
// so far, is more than `tolerance` units later) is stale or false and is dropped too. When every
// lane shows a marker at its front, the fronts are one row. From then on it hands out a row
// whenever every lane has a unit: the late lanes set the pace, and a row is complete at the arrival
// of its latest unit (pop() reports that number), so the deskew latency is the largest skew.
// These rules only depend on each lane's own sequence, not on how pushes to different lanes
// interleave, so a caller may push a whole chunk of one lane before the next.
//
// At every later marker it checks that all lanes show it in the same row; if not, it counts an
// alignment error and realigns on the next markers (what a real receiver does in
// LinkErrorRecovery).
//
// Lane reversal: when the cable (or board) wires transmit lane i to receive lane w-1-i, training
// reports it (link_training.h) and the deskewer hands out rows in logical order: logical lane i is
// physical lane w-1-i.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <utility>
#include <vector>

#include "sim/core/error.h"

namespace ibfsim {

// Unit: what one lane delivers per unit time. IsMarker: a callable bool(const Unit&).
template <class Unit, class IsMarker>
class LaneDeskewer {
 public:
  // tolerance: the largest skew between lanes, in units, the receiver absorbs.
  LaneDeskewer(unsigned lanes, bool reversed, std::size_t tolerance, IsMarker is_marker = IsMarker())
      : fifo_(lanes), received_(lanes, 0), reversed_(reversed), tolerance_(tolerance),
        is_marker_(std::move(is_marker)) {
    IBFSIM_CHECK(lanes > 0, "a link has at least one lane");
  }

  unsigned lanes() const { return static_cast<unsigned>(fifo_.size()); }
  bool reversed() const { return reversed_; }
  bool aligned() const { return aligned_; }
  std::uint64_t alignment_errors() const { return alignment_errors_; }
  // Units dropped while looking for alignment.
  std::uint64_t dropped() const { return dropped_; }

  // The next unit received on physical lane `lane`.
  void push(unsigned lane, Unit u) {
    auto& q = fifo_.at(lane);
    const std::uint64_t index = received_[lane]++;
    if (!aligned_ && q.empty() && !is_marker_(u)) {
      ++dropped_;
    } else {
      q.push_back(Entry{std::move(u), index});
    }
    if (!aligned_) try_align();
  }

  // Takes the next aligned row (row[i] = logical lane i) if every lane has delivered it; *arrival
  // gets the arrival number of its latest unit.
  bool pop(std::vector<Unit>& row, std::uint64_t* arrival = nullptr) {
    while (aligned_) {
      unsigned markers = 0;
      for (const auto& q : fifo_) {
        if (q.empty()) return false;
        markers += is_marker_(q.front().unit) ? 1 : 0;
      }
      if (markers != 0 && markers != fifo_.size()) {
        ++alignment_errors_;
        aligned_ = false;
        for (auto& q : fifo_) drop_to_marker(q);
        try_align();
        continue;
      }
      const unsigned w = lanes();
      row.resize(w);
      std::uint64_t latest = 0;
      for (unsigned i = 0; i < w; ++i) {
        auto& q = fifo_[reversed_ ? w - 1 - i : i];
        row[i] = std::move(q.front().unit);
        if (q.front().index > latest) latest = q.front().index;
        q.pop_front();
      }
      if (arrival) *arrival = latest;
      return true;
    }
    return false;
  }

 private:
  struct Entry {
    Unit unit;
    std::uint64_t index;  // arrival number on its lane
  };

  void drop_to_marker(std::deque<Entry>& q) {
    while (!q.empty() && !is_marker_(q.front().unit)) {
      q.pop_front();
      ++dropped_;
    }
  }

  // Unaligned: every FIFO is empty or starts with a marker. Drops markers no other lane can
  // match, then aligns if every lane has one.
  void try_align() {
    const unsigned w = lanes();
    bool changed = true;
    while (changed) {
      changed = false;
      for (unsigned p = 0; p < w && !changed; ++p) {
        if (fifo_[p].empty()) continue;
        const std::uint64_t mine = fifo_[p].front().index;
        for (unsigned q = 0; q < w; ++q) {
          // The earliest a marker can still be on lane q.
          const std::uint64_t theirs = fifo_[q].empty() ? received_[q] : fifo_[q].front().index;
          if (theirs > mine + tolerance_) {
            fifo_[p].pop_front();
            ++dropped_;
            drop_to_marker(fifo_[p]);
            changed = true;
            break;
          }
        }
      }
    }
    for (const auto& q : fifo_)
      if (q.empty()) return;
    aligned_ = true;
  }

  std::vector<std::deque<Entry>> fifo_;
  std::vector<std::uint64_t> received_;
  bool reversed_;
  std::size_t tolerance_;
  IsMarker is_marker_;
  bool aligned_ = false;
  std::uint64_t alignment_errors_ = 0;
  std::uint64_t dropped_ = 0;
};

}  // namespace ibfsim
