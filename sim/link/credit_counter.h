// Transmitter-side credit state for one data VL (IBA Vol1 ch. 7, rules R4/R5 in docs/compliance.md):
// FCTBS counts the 64-byte blocks this port has sent, FCCL is the limit the peer last advertised;
// both mod 4096.
#pragma once
#include <cstdint>

namespace ibfsim {

constexpr std::uint32_t kCreditBytes = 64;
constexpr std::uint16_t kCreditModulus = 4096;
constexpr std::uint16_t kCreditMask = kCreditModulus - 1;
constexpr std::uint16_t kCreditHalfRing = 2048;

// Blocks a packet of `bytes` (LRH..VCRC) needs: CR = ceil(bytes / 64).
inline std::uint32_t credits_for_bytes(std::uint64_t bytes) {
  return static_cast<std::uint32_t>((bytes + kCreditBytes - 1) / kCreditBytes);
}

class CreditCounter {
 public:
  // R4: a packet of `blocks` may start only if (FCCL - (FCTBS + CR)) mod 4096 <= 2048.
  bool can_send(std::uint32_t blocks) const {
    return static_cast<std::uint16_t>((fccl_ - (fctbs_ + blocks)) & kCreditMask) <= kCreditHalfRing;
  }
  // Records a packet sent; the caller has checked can_send (checked again here).
  void consume(std::uint32_t blocks);
  // A flow-control packet from the peer set a new limit.
  void set_limit(std::uint16_t fccl) { fccl_ = fccl & kCreditMask; }

  std::uint16_t fctbs() const { return fctbs_; }
  std::uint16_t fccl() const { return fccl_; }
  // Blocks still available under the current limit (0 when none).
  std::uint32_t available() const {
    std::uint16_t d = (fccl_ - fctbs_) & kCreditMask;
    return d <= kCreditHalfRing ? d : 0;
  }

 private:
  std::uint16_t fctbs_ = 0;
  std::uint16_t fccl_ = 0;  // nothing may be sent before the peer's first flow-control packet
};

}  // namespace ibfsim
