// An HCA's asynchronous events (libibverbs ibv_get_async_event): affiliated events such as an
// SRQ's limit reached or a QP of an SRQ having taken its last WQE, raised by a QP as the HCA
// notices them and visible to the consumer `wire_to_completion` later (the event queue entry
// crosses the host interface as a completion does), in the order raised. The consumer reads
// them with get (non-blocking: EAGAIN when none is waiting, as an async fd set O_NONBLOCK) or is
// called back on each as it becomes visible.
#pragma once
#include <cstdint>
#include <deque>
#include <map>

#include "sim/core/time.h"
#include "sim/transport/verbs.h"

namespace ibfsim {

class AsyncEventListener {
 public:
  virtual ~AsyncEventListener() = default;
  virtual void on_async_event(const verbs::ibv_async_event& e) = 0;
};

class AsyncEventQueue {
 public:
  // An event raised now, visible at `visible_at` (at or after any raised before it).
  void raise(Time visible_at, const verbs::ibv_async_event& e);
  // The earliest raised event becomes visible: queued for get() and told to the listener.
  void deliver_next();
  // ibv_get_async_event: 0 and the oldest visible event, or EAGAIN.
  int get(verbs::ibv_async_event* out);
  void set_listener(AsyncEventListener* l) { listener_ = l; }
  // Events that became visible, by type (whether read or not).
  const std::map<verbs::ibv_event_type, std::uint64_t>& delivered() const { return delivered_; }
  std::size_t waiting() const { return ready_.size(); }

 private:
  struct Pending {
    Time at;
    verbs::ibv_async_event e;
  };
  std::deque<Pending> pending_;
  std::deque<verbs::ibv_async_event> ready_;
  std::map<verbs::ibv_event_type, std::uint64_t> delivered_;
  AsyncEventListener* listener_ = nullptr;
};

}  // namespace ibfsim
