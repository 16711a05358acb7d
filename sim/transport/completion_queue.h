// A completion queue: work completions in the order the HCA posts them, read with poll().
#pragma once
#include <cstdint>
#include <deque>
#include <vector>

#include "sim/transport/verbs.h"

namespace ibfsim {

// Called for every completion as it is posted (an application model waits on this instead of
// polling, so nothing runs while nothing completes).
class CompletionListener {
 public:
  virtual ~CompletionListener() = default;
  virtual void on_completion(verbs::CqHandle cq, const verbs::ibv_wc& wc) = 0;
};

class CompletionQueue {
 public:
  explicit CompletionQueue(std::uint32_t cqe) : capacity_(cqe) {}
  // False on overflow: the CQ is then in error, as on hardware (the completion is lost).
  bool push(const verbs::ibv_wc& wc);
  // Up to n completions, oldest first (ibv_poll_cq).
  int poll(int n, verbs::ibv_wc* out);
  std::size_t size() const { return wcs_.size(); }
  bool overflowed() const { return overflowed_; }
  void set_listener(CompletionListener* l) { listener_ = l; }
  CompletionListener* listener() const { return listener_; }

 private:
  std::uint32_t capacity_;
  std::deque<verbs::ibv_wc> wcs_;
  bool overflowed_ = false;
  CompletionListener* listener_ = nullptr;
};

}  // namespace ibfsim
