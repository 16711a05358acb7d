#include "sim/core/event_calendar.h"

#include <algorithm>

#include "sim/core/error.h"

namespace ibfsim {

namespace {
bool earlier(const Event& a, const Event& b) { return a.at != b.at ? a.at < b.at : a.order < b.order; }
}  // namespace

EventCalendar::EventCalendar() : wheel_(kBuckets) {}

void EventCalendar::insert_into_wheel(const Event& a) {
  Bucket& b = wheel_[(a.at >> kBucketShift) & (kBuckets - 1)];
  if (b.sorted) {
    // The current bucket is being drained in order: insert in place (usually at the end).
    auto pos = std::upper_bound(b.items.begin() + static_cast<std::ptrdiff_t>(b.read), b.items.end(), a, earlier);
    b.items.insert(pos, a);
  } else {
    b.items.push_back(a);
  }
  ++in_wheel_;
}

void EventCalendar::push_slow(const Event& e, std::uint64_t order) {
  Event a = e;
  a.order = order;
  const std::uint64_t bucket = a.at >> kBucketShift;
  IBFSIM_CHECK(bucket >= floor_, "calendar push before the current time");
  if (bucket < cur_) rewind_to(bucket);
  if (bucket < cur_ + kBuckets) {
    insert_into_wheel(a);
  } else {
    far_.push_back(a);
    std::push_heap(far_.begin(), far_.end(), Later{});
  }
  ++size_;
}

// top() moved the window up to the next event, and now an earlier one arrives (another module
// scheduled into this calendar): events beyond the new horizon go back to the far heap.
void EventCalendar::rewind_to(std::uint64_t bucket) {
  const std::uint64_t new_end = bucket + kBuckets;
  for (std::uint64_t b = std::max(new_end, cur_); b < cur_ + kBuckets; ++b) {
    Bucket& w = wheel_[b & (kBuckets - 1)];
    for (std::size_t i = w.read; i < w.items.size(); ++i) {
      far_.push_back(w.items[i]);
      std::push_heap(far_.begin(), far_.end(), Later{});
      --in_wheel_;
    }
    w.items.clear();
    w.read = 0;
    w.sorted = false;
  }
  cur_ = bucket;
}

void EventCalendar::advance() {
  {
    // Fast path: the current bucket is sorted and not drained (pop() right after top()).
    const Bucket& b = wheel_[cur_ & (kBuckets - 1)];
    if (b.sorted && b.read < b.items.size()) return;
  }
  for (;;) {
    // Events that have come within the wheel's horizon move in.
    while (!far_.empty() && (far_.front().at >> kBucketShift) < cur_ + kBuckets) {
      std::pop_heap(far_.begin(), far_.end(), Later{});
      insert_into_wheel(far_.back());
      far_.pop_back();
    }
    Bucket& b = wheel_[cur_ & (kBuckets - 1)];
    if (b.read < b.items.size()) {
      if (!b.sorted) {
        // Buckets hold few events, mostly already in order: insertion sort beats std::sort.
        for (std::size_t i = 1; i < b.items.size(); ++i) {
          Event a = b.items[i];
          std::size_t j = i;
          for (; j > 0 && earlier(a, b.items[j - 1]); --j) b.items[j] = b.items[j - 1];
          b.items[j] = a;
        }
        b.sorted = true;
      }
      return;
    }
    b.items.clear();
    b.read = 0;
    b.sorted = false;
    if (in_wheel_ == 0) {
      // Nothing near: jump straight to the first far event.
      cur_ = far_.front().at >> kBucketShift;
    } else {
      ++cur_;
    }
  }
}

const Event& EventCalendar::top() {
  advance();
  const Bucket& b = wheel_[cur_ & (kBuckets - 1)];
  return b.items[b.read];
}

Event EventCalendar::pop() {
  advance();
  Bucket& b = wheel_[cur_ & (kBuckets - 1)];
  Event a = b.items[b.read++];
  floor_ = cur_;
  --in_wheel_;
  --size_;
  return a;
}

}  // namespace ibfsim
