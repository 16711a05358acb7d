#include "sim/core/event_calendar.h"

#include <algorithm>

namespace ibfsim {

void EventCalendar::push(Time at, ActionHandler* h, std::uint32_t kind, std::uint64_t arg, void* ptr) {
  heap_.push_back(Action{at, next_seq_++, h, kind, arg, ptr});
  std::push_heap(heap_.begin(), heap_.end(), later);
}

Action EventCalendar::pop() {
  std::pop_heap(heap_.begin(), heap_.end(), later);
  Action a = heap_.back();
  heap_.pop_back();
  return a;
}

}  // namespace ibfsim
