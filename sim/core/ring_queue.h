// A FIFO on a growable circular buffer. Unlike std::deque it allocates nothing until the first
// push, so thousands of per-VL queues that stay empty cost only their few bytes.
#pragma once
#include <cstddef>
#include <vector>

namespace ibfsim {

template <typename T>
class RingQueue {
 public:
  bool empty() const { return size_ == 0; }
  std::size_t size() const { return size_; }
  T& front() { return buf_[head_]; }
  const T& front() const { return buf_[head_]; }
  void push_back(const T& v) {
    if (size_ == buf_.size()) grow();
    buf_[(head_ + size_) & (buf_.size() - 1)] = v;
    ++size_;
  }
  void pop_front() {
    head_ = (head_ + 1) & (buf_.size() - 1);
    --size_;
  }
  // Element i from the front.
  T& at(std::size_t i) { return buf_[(head_ + i) & (buf_.size() - 1)]; }
  const T& at(std::size_t i) const { return buf_[(head_ + i) & (buf_.size() - 1)]; }
  // Removes element i, keeping the order of the others (O(size - i): for rare removals).
  void erase(std::size_t i) {
    for (; i + 1 < size_; ++i) at(i) = at(i + 1);
    --size_;
  }

 private:
  void grow() {
    std::vector<T> bigger(buf_.empty() ? 4 : buf_.size() * 2);
    for (std::size_t i = 0; i < size_; ++i) bigger[i] = buf_[(head_ + i) & (buf_.size() - 1)];
    buf_.swap(bigger);
    head_ = 0;
  }
  std::vector<T> buf_;  // size is 0 or a power of two
  std::size_t head_ = 0;
  std::size_t size_ = 0;
};

}  // namespace ibfsim
