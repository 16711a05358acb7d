// DETH, the 8-byte datagram extended transport header (UD, RD): Q_Key (32), reserved (8),
// SrcQP (24). Big-endian.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"

namespace ibfsim {

constexpr std::size_t kDethBytes = 8;

// A decoded DETH; src_qp is masked to 24 bits on encode.
struct Deth {
  std::uint32_t q_key = 0;
  Qpn src_qp = 0;
};

void encode_deth(const Deth& deth, std::uint8_t* out8);
Deth decode_deth(const std::uint8_t* in8);

}  // namespace ibfsim
