#include "sim/link/receive_buffer.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace ibfsim {

void ReceiveBuffer::receive(std::uint32_t blocks) {
  IBFSIM_CHECK(occupied_ + blocks <= capacity_,
               fmt::format("receive buffer overrun: {} + {} blocks > capacity {}", occupied_, blocks, capacity_));
  occupied_ += blocks;
  if (occupied_ > max_occupied_) max_occupied_ = occupied_;
  abr_ = static_cast<std::uint16_t>((abr_ + blocks) & kCreditMask);
}

void ReceiveBuffer::release(std::uint32_t blocks) {
  IBFSIM_CHECK(blocks <= occupied_, "receive buffer released more than it held");
  occupied_ -= blocks;
}

bool ReceiveBuffer::resync(std::uint16_t fctbs) {
  const bool agreed = abr_ == (fctbs & kCreditMask);
  abr_ = fctbs & kCreditMask;
  return agreed;
}

}  // namespace ibfsim
