// VLArbitrationTable (SMP attribute 0x0018, IBA Vol1 14.2.5.9): a port's VL arbitration weights in
// blocks of 32 entries of two bytes: reserved (7-4) | VL (3-0), then Weight (64-byte units).
// AttributeModifier: block selector (31-16: 1 = low-priority entries 0-31, 2 = low 32-63,
// 3 = high 0-31, 4 = high 32-63), then the port number (15-0; a switch names the output port).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/link/vl_arbiter.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_VL_ARBITRATION = 0x0018;
constexpr std::size_t kVlArbBlockEntries = 32;  // IB_NUM_VL_ARB_ELEMENTS_IN_BLOCK

constexpr std::uint16_t kVlArbLowPriorityFirst = 1;   // low-priority table entries 0-31
constexpr std::uint16_t kVlArbLowPriorityLast = 2;    // low-priority table entries 32-63
constexpr std::uint16_t kVlArbHighPriorityFirst = 3;  // high-priority table entries 0-31
constexpr std::uint16_t kVlArbHighPriorityLast = 4;   // high-priority table entries 32-63

// One decoded block, entries in table order (VLs masked to 4 bits on encode).
struct VlArbitrationTableBlock {
  std::array<VlArbEntry, kVlArbBlockEntries> entries{};
};

// The AttributeModifier's fields.
struct VlArbAttributeModifier {
  std::uint16_t block_selector = kVlArbLowPriorityFirst;
  PortNum port = 0;
};

std::uint32_t encode_vl_arb_attribute_modifier(const VlArbAttributeModifier& m);
VlArbAttributeModifier decode_vl_arb_attribute_modifier(std::uint32_t attribute_modifier);

SmpData encode_vl_arbitration_table(const VlArbitrationTableBlock& block);
VlArbitrationTableBlock decode_vl_arbitration_table(const std::uint8_t* in64);

}  // namespace ibfsim
