// AtomicETH, the 28-byte header of CmpSwap and FetchAdd requests: VA (64), R_Key (32),
// Swap/Add data (64), Compare data (64). Big-endian. And AtomicAckETH, the 8-byte original remote
// data returned in an ATOMIC Acknowledge.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ibfsim {

constexpr std::size_t kAtomicEthBytes = 28;
constexpr std::size_t kAtomicAckEthBytes = 8;

struct AtomicEth {
  std::uint64_t va = 0;
  std::uint32_t r_key = 0;
  std::uint64_t swap_add = 0;  // CmpSwap: value written on match; FetchAdd: addend
  std::uint64_t compare = 0;   // CmpSwap only
};

void encode_atomic_eth(const AtomicEth& h, std::uint8_t* out28);
AtomicEth decode_atomic_eth(const std::uint8_t* in28);

struct AtomicAckEth {
  std::uint64_t orig_data = 0;
};

void encode_atomic_ack_eth(const AtomicAckEth& h, std::uint8_t* out8);
AtomicAckEth decode_atomic_ack_eth(const std::uint8_t* in8);

}  // namespace ibfsim
