#include "sim/transport/async_events.h"

#include <cerrno>

#include "sim/core/error.h"

namespace ibfsim {

void AsyncEventQueue::raise(Time visible_at, const verbs::ibv_async_event& e) {
  IBFSIM_CHECK(pending_.empty() || pending_.back().at <= visible_at, "async events raised out of order");
  pending_.push_back({visible_at, e});
}

void AsyncEventQueue::deliver_next() {
  IBFSIM_CHECK(!pending_.empty(), "no async event to deliver");
  const verbs::ibv_async_event e = pending_.front().e;
  pending_.pop_front();
  ready_.push_back(e);
  ++delivered_[e.event_type];
  if (listener_) listener_->on_async_event(e);
}

int AsyncEventQueue::get(verbs::ibv_async_event* out) {
  if (ready_.empty()) return EAGAIN;
  *out = ready_.front();
  ready_.pop_front();
  return 0;
}

}  // namespace ibfsim
