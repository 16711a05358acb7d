// A calendar of future actions, earliest first; equal times run in the order they were scheduled.
// Pure data structure: the SystemC process that wakes for the earliest entry is CalendarProcess.
//
// It is a timing wheel: 4096 buckets of 2^20 fs (about 1.05 ns) cover the next ~4.3 us, where
// nearly every action of a fabric falls (packet times, switch latencies, credit returns). A push
// into the wheel is O(1); a bucket is sorted once when it becomes current. Actions further out
// wait in a binary heap and move into the wheel as time approaches them.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

// Anything that can be the target of a scheduled action (a port, a queue pair, a generator...).
class ActionHandler {
 public:
  virtual ~ActionHandler() = default;
  virtual void on_action(std::uint32_t kind, std::uint64_t arg, void* ptr) = 0;
};

struct Action {
  Time at = 0;
  std::uint64_t seq = 0;
  ActionHandler* handler = nullptr;
  std::uint32_t kind = 0;
  std::uint64_t arg = 0;
  void* ptr = nullptr;
};

class EventCalendar {
 public:
  EventCalendar();

  // `at` must not be earlier than the time of the last action popped.
  // `at` may be earlier than top(): the wheel then moves its window back.
  void push(Time at, ActionHandler* h, std::uint32_t kind, std::uint64_t arg, void* ptr);
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  // The earliest action; the calendar must not be empty.
  const Action& top();
  Action pop();

 private:
  static constexpr unsigned kBucketShift = 20;
  static constexpr std::uint64_t kBuckets = 4096;
  struct Later {
    bool operator()(const Action& a, const Action& b) const { return a.at != b.at ? a.at > b.at : a.seq > b.seq; }
  };
  struct Bucket {
    std::vector<Action> items;  // sorted from `read` on once the bucket is current
    std::size_t read = 0;
    bool sorted = false;
  };
  void advance();  // makes cur_ the first non-empty bucket, pulling from far_ as needed
  void insert_into_wheel(const Action& a);
  void rewind_to(std::uint64_t bucket);

  std::vector<Bucket> wheel_;
  std::uint64_t cur_ = 0;  // absolute bucket number (time >> kBucketShift) of the wheel's start
  std::vector<Action> far_;  // heap of actions at or beyond cur_ + kBuckets
  std::size_t size_ = 0;
  std::size_t in_wheel_ = 0;
  std::uint64_t next_seq_ = 0;
  std::uint64_t floor_ = 0;  // bucket of the last action popped: nothing may be pushed before it
};

}  // namespace ibfsim
