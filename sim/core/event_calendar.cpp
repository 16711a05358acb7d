#include "sim/core/event_calendar.h"

#include <algorithm>

#include "sim/core/error.h"

namespace ibfsim {

namespace {
bool earlier(const Event& a, const Event& b) { return a.at != b.at ? a.at < b.at : a.order < b.order; }
}  // namespace

EventCalendar::EventCalendar() : wheel_(kBuckets) {}

void EventCalendar::insert_into_wheel(const Event& a) {
  const std::uint64_t bucket = a.at >> kBucketShift;
  if (loaded_ && bucket == cur_) {
    // The current bucket is being drained in order: insert in place (usually at the end).
    auto pos = std::upper_bound(current_.begin() + static_cast<std::ptrdiff_t>(read_), current_.end(), a, earlier);
    current_.insert(pos, a);
  } else {
    append(bucket, a);
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
// scheduled into this calendar): events beyond the new horizon go back to the far heap, and the
// current bucket's pending events back into its chain (sorted again when it is current again).
void EventCalendar::rewind_to(std::uint64_t bucket) {
  const std::uint64_t new_end = bucket + kBuckets;
  if (loaded_) {
    for (std::size_t i = read_; i < current_.size(); ++i) append(cur_, current_[i]);
    current_.clear();
    read_ = 0;
    loaded_ = false;
  }
  for (std::uint64_t b = std::max(new_end, cur_); b < cur_ + kBuckets; ++b) {
    drain_bucket(wheel_[b & (kBuckets - 1)], [this](const Event& e) {
      far_.push_back(e);
      std::push_heap(far_.begin(), far_.end(), Later{});
      --in_wheel_;
    });
  }
  cur_ = bucket;
}

void EventCalendar::load_current() {
  current_.clear();
  read_ = 0;
  drain_chunks(wheel_[cur_ & (kBuckets - 1)],
               [this](const Event* first, std::uint32_t n) { current_.insert(current_.end(), first, first + n); });
  // Buckets hold few events, mostly already in order: insertion sort beats std::sort, and an event
  // already after its predecessor is not moved at all.
  for (std::size_t i = 1; i < current_.size(); ++i) {
    if (!earlier(current_[i], current_[i - 1])) continue;
    Event a = current_[i];
    std::size_t j = i;
    for (; j > 0 && earlier(a, current_[j - 1]); --j) current_[j] = current_[j - 1];
    current_[j] = a;
  }
  loaded_ = true;
}

void EventCalendar::advance() {
  // Fast path: the current bucket is sorted and not drained (pop() right after top()).
  if (loaded_ && read_ < current_.size()) return;
  for (;;) {
    // Events that have come within the wheel's horizon move in.
    while (!far_.empty() && (far_.front().at >> kBucketShift) < cur_ + kBuckets) {
      std::pop_heap(far_.begin(), far_.end(), Later{});
      insert_into_wheel(far_.back());
      far_.pop_back();
    }
    if (!loaded_ && wheel_[cur_ & (kBuckets - 1)].head != kNone) load_current();
    if (loaded_ && read_ < current_.size()) return;
    current_.clear();
    read_ = 0;
    loaded_ = false;
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
  return current_[read_];
}

Event EventCalendar::pop() {
  advance();
  Event a = current_[read_++];
  floor_ = cur_;
  --in_wheel_;
  --size_;
  return a;
}

}  // namespace ibfsim
