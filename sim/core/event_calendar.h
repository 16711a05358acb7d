// A calendar of future events (event.h), earliest first; equal times run in the order they were
// scheduled. Pure data structure: the SystemC process that wakes for the earliest is CalendarProcess.
//
// It is a timing wheel: 4096 buckets of 2^20 fs (about 1.05 ns) cover the next ~4.3 us, where
// nearly every event of a fabric falls (packet times, switch latencies, credit returns). A push
// into the wheel is O(1); a bucket is sorted once when it becomes current. Events further out
// wait in a binary heap and move into the wheel as time approaches them.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/event.h"
#include "sim/core/time.h"

namespace ibfsim {

class EventCalendar {
 public:
  // The top bit of an order: clear for early events, which run before the ordinary ones.
  static constexpr std::uint64_t kOrdinary = std::uint64_t{1} << 63;

  EventCalendar();

  // `e.at` must not be earlier than the time of the last event popped; it may be earlier than
  // top(): the wheel then moves its window back. The calendar sets e.order (scheduling order).
  // An `early` event runs before every ordinary event of its instant (in scheduling order among
  // early ones): for what must be in place before anything at that instant looks at it.
  void push(const Event& e, bool early = false) {
    push_keyed(e, early ? next_seq_++ : (next_seq_++ | kOrdinary));
  }
  // The same with the order among events of the same instant given by the caller (`order`
  // replaces e.order; smaller first): how a CalendarProcess keeps the model's own tie-break.
  void push_keyed(const Event& e, std::uint64_t order) {
    const std::uint64_t bucket = e.at >> kBucketShift;
    // The common case, inline: a bucket of the wheel that is not being drained.
    if (bucket >= cur_ && bucket < cur_ + kBuckets) {
      Bucket& b = wheel_[bucket & (kBuckets - 1)];
      if (!b.sorted) {
        b.items.push_back(e);
        b.items.back().order = order;
        ++in_wheel_;
        ++size_;
        return;
      }
    }
    push_slow(e, order);
  }
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The earliest event; the calendar must not be empty.
  const Event& top();
  Event pop();

 private:
  static constexpr unsigned kBucketShift = 20;
  static constexpr std::uint64_t kBuckets = 4096;
  struct Later {
    bool operator()(const Event& a, const Event& b) const { return a.at != b.at ? a.at > b.at : a.order > b.order; }
  };
  struct Bucket {
    std::vector<Event> items;  // sorted from `read` on once the bucket is current
    std::size_t read = 0;
    bool sorted = false;
  };
  void push_slow(const Event& e, std::uint64_t order);
  void advance();  // makes cur_ the first non-empty bucket, pulling from far_ as needed
  void insert_into_wheel(const Event& a);
  void rewind_to(std::uint64_t bucket);

  std::vector<Bucket> wheel_;
  std::uint64_t cur_ = 0;  // absolute bucket number (time >> kBucketShift) of the wheel's start
  std::vector<Event> far_;  // heap of events at or beyond cur_ + kBuckets
  std::size_t size_ = 0;
  std::size_t in_wheel_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t floor_ = 0;  // bucket of the last event popped: nothing may be pushed before it
};

}  // namespace ibfsim
