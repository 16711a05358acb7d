// RETH, the 16-byte RDMA extended transport header: VA (64), R_Key (32), DMA length (32).
// Big-endian.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ibfsim {

constexpr std::size_t kRethBytes = 16;

// A decoded RETH.
struct Reth {
  std::uint64_t va = 0;
  std::uint32_t r_key = 0;
  std::uint32_t dma_len = 0;
};

void encode_reth(const Reth& reth, std::uint8_t* out16);
Reth decode_reth(const std::uint8_t* in16);

}  // namespace ibfsim
