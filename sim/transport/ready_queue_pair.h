// The send engine's choice among the QPs waiting on a port when a rate limiter holds some of them
// back (InfiniBand CC's throttle, RoCE's DCQCN): the first QP in ring order whose next packet may
// start now goes to the front; if none may, the one allowed soonest. The ring's order is otherwise
// kept. `ready_at(qp)`: the earliest time the QP's next packet may start.
#pragma once
#include <cstddef>
#include <deque>

#include "sim/core/time.h"
#include "sim/transport/queue_pair.h"

namespace ibfsim {

template <class ReadyAt>
void bring_ready_qp_to_front(std::deque<QueuePair*>& ring, Time now, ReadyAt ready_at) {
  std::size_t best = 0;
  Time best_at = kTimeNever;
  for (std::size_t i = 0; i < ring.size(); ++i) {
    const Time t = ready_at(*ring[i]);
    if (t <= now) {
      best = i;
      break;
    }
    if (t < best_at) best_at = t, best = i;
  }
  if (best == 0) return;
  QueuePair* q = ring[best];
  ring.erase(ring.begin() + static_cast<std::ptrdiff_t>(best));
  ring.push_front(q);
}

}  // namespace ibfsim
