// A module's own future actions, earliest first; equal times run in the order they were scheduled.
// Pure data structure: the SystemC shell that wakes for the earliest entry is ScheduledModule.
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
  void push(Time at, ActionHandler* h, std::uint32_t kind, std::uint64_t arg, void* ptr);
  bool empty() const { return heap_.empty(); }
  std::size_t size() const { return heap_.size(); }
  const Action& top() const { return heap_.front(); }
  Action pop();

 private:
  static bool later(const Action& a, const Action& b) {
    return a.at != b.at ? a.at > b.at : a.seq > b.seq;
  }
  std::vector<Action> heap_;
  std::uint64_t next_seq_ = 0;
};

}  // namespace ibfsim
