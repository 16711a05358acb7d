// LinearForwardingTable (SMP attribute 0x0019, IBA Vol1 14.2.5.10): a switch's unicast routes in
// blocks of 64 one-byte egress ports; entry i of block b is the port for LID 64 * b + i, 255 =
// no route. AttributeModifier: the block number (0-767 covers the unicast LIDs).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/network/lft.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_LIN_FWD_TBL = 0x0019;
constexpr std::size_t kLftBlockEntries = 64;

// One decoded block. A default block routes nothing.
struct LinearForwardingTableBlock {
  LinearForwardingTableBlock() { ports.fill(kNoRoute); }
  std::array<PortNum, kLftBlockEntries> ports;
};

// The block and entry holding `lid`, and the first LID of a block.
constexpr std::uint32_t lft_block_of(Lid lid) { return lid / kLftBlockEntries; }
constexpr std::size_t lft_entry_of(Lid lid) { return lid % kLftBlockEntries; }
constexpr Lid lft_block_first_lid(std::uint32_t block) {
  return static_cast<Lid>(block * kLftBlockEntries);
}

SmpData encode_linear_forwarding_table(const LinearForwardingTableBlock& block);
LinearForwardingTableBlock decode_linear_forwarding_table(const std::uint8_t* in64);

}  // namespace ibfsim
