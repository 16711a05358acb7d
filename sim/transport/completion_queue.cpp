#include "sim/transport/completion_queue.h"

namespace ibfsim {

bool CompletionQueue::push(const verbs::ibv_wc& wc) {
  if (wcs_.size() >= capacity_) {
    overflowed_ = true;
    return false;
  }
  wcs_.push_back(wc);
  return true;
}

int CompletionQueue::poll(int n, verbs::ibv_wc* out) {
  int got = 0;
  while (got < n && !wcs_.empty()) {
    out[got++] = wcs_.front();
    wcs_.pop_front();
  }
  return got;
}

}  // namespace ibfsim
