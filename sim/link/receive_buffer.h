// Receiver-side state of one data VL: the buffer's capacity and occupancy in 64-byte blocks, and
// ABR (adjusted blocks received, mod 4096), from which the advertised FCCL is computed (R5).
#pragma once
#include <cstdint>

#include "sim/core/time.h"
#include "sim/link/credit_counter.h"

namespace ibfsim {

class ReceiveBuffer {
 public:
  ReceiveBuffer() = default;
  explicit ReceiveBuffer(std::uint32_t capacity_blocks) : capacity_(capacity_blocks) {}

  // A data packet of `blocks` starts arriving at `now`: it must fit (the sender obeyed our FCCL),
  // else the credit protocol is broken and the run stops.
  void receive(std::uint32_t blocks, Time now = 0);
  // The packet left the buffer (forwarded, consumed or discarded).
  void release(std::uint32_t blocks, Time now = 0);
  // Time-weighted mean occupancy in blocks over [0, now].
  double mean_occupied(Time now) const;
  // A flow-control packet from the sender resynchronises ABR to its FCTBS. Returns whether they
  // already agreed (they always do on a lossless link).
  bool resync(std::uint16_t fctbs);
  // Link (re)initialisation: the sender's FCTBS restarts at 0, and so does ABR.
  void reset_abr() { abr_ = 0; }

  // FCCL = ABR + free blocks, free capped at 2048 so the limit stays within half the ring.
  std::uint16_t fccl() const {
    std::uint32_t free_blocks = capacity_ - occupied_;
    if (free_blocks > kCreditHalfRing) free_blocks = kCreditHalfRing;
    return static_cast<std::uint16_t>((abr_ + free_blocks) & kCreditMask);
  }
  std::uint32_t capacity() const { return capacity_; }
  std::uint32_t occupied() const { return occupied_; }
  std::uint32_t max_occupied() const { return max_occupied_; }
  std::uint16_t abr() const { return abr_; }

 private:
  std::uint32_t capacity_ = 0;
  std::uint32_t occupied_ = 0;
  std::uint32_t max_occupied_ = 0;
  std::uint16_t abr_ = 0;
  Time last_change_ = 0;
  unsigned __int128 occupancy_integral_ = 0;  // block-femtoseconds
  void account(Time now);
};

}  // namespace ibfsim
