#include "sim/link/receive_buffer.h"

#include <fmt/format.h>

#include "sim/core/error.h"

namespace ibfsim {

void ReceiveBuffer::account(Time now) {
  if (now > last_change_) {
    occupancy_integral_ += static_cast<unsigned __int128>(occupied_) * (now - last_change_);
    last_change_ = now;
  }
}

double ReceiveBuffer::mean_occupied(Time now) const {
  unsigned __int128 integral = occupancy_integral_;
  if (now > last_change_) integral += static_cast<unsigned __int128>(occupied_) * (now - last_change_);
  return now ? static_cast<double>(integral) / static_cast<double>(now) : 0.0;
}

void ReceiveBuffer::receive(std::uint32_t blocks, Time now) {
  account(now);
  IBFSIM_CHECK(occupied_ + blocks <= capacity_,
               fmt::format("receive buffer overrun: {} + {} blocks > capacity {}", occupied_, blocks, capacity_));
  occupied_ += blocks;
  if (occupied_ > max_occupied_) max_occupied_ = occupied_;
  abr_ = static_cast<std::uint16_t>((abr_ + blocks) & kCreditMask);
}

void ReceiveBuffer::release(std::uint32_t blocks, Time now) {
  account(now);
  IBFSIM_CHECK(blocks <= occupied_, "receive buffer released more than it held");
  occupied_ -= blocks;
}

bool ReceiveBuffer::resync(std::uint16_t fctbs) {
  const bool agreed = abr_ == (fctbs & kCreditMask);
  abr_ = fctbs & kCreditMask;
  return agreed;
}

}  // namespace ibfsim
