// MulticastForwardingTable (SMP attribute 0x001B, IBA Vol1 14.2.5.12): a switch's multicast port
// sets in blocks of 32 MLIDs x one 16-bit port mask, big-endian. Entry i of block b is MLID
// 0xC000 + 32 * b + i; bit j of a mask set means "send out port 16 * position + j".
// AttributeModifier: position (31-28, ports 16p..16p+15), reserved (27-9), block (8-0).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_MCAST_FWD_TBL = 0x001B;
constexpr std::size_t kMftBlockEntries = 32;  // IB_MCAST_BLOCK_SIZE
constexpr unsigned kMftPortsPerMask = 16;     // IB_MCAST_MASK_SIZE
constexpr Lid kMulticastLidBase = 0xC000;

// One decoded block: port_masks[i] is the mask of MLID 0xC000 + 32 * block + i.
struct MulticastForwardingTableBlock {
  std::array<std::uint16_t, kMftBlockEntries> port_masks{};
};

// The AttributeModifier's two fields. position is 4 bits, block 9 bits.
struct MftAttributeModifier {
  std::uint8_t position = 0;
  std::uint16_t block = 0;
};

std::uint32_t encode_mft_attribute_modifier(const MftAttributeModifier& m);
MftAttributeModifier decode_mft_attribute_modifier(std::uint32_t attribute_modifier);

// The block and entry of a multicast LID.
constexpr std::uint16_t mft_block_of(Lid mlid) {
  return static_cast<std::uint16_t>((mlid - kMulticastLidBase) / kMftBlockEntries);
}
constexpr std::size_t mft_entry_of(Lid mlid) { return (mlid - kMulticastLidBase) % kMftBlockEntries; }

SmpData encode_multicast_forwarding_table(const MulticastForwardingTableBlock& block);
MulticastForwardingTableBlock decode_multicast_forwarding_table(const std::uint8_t* in64);

}  // namespace ibfsim
