// P_KeyTable (SMP attribute 0x0016, IBA Vol1 14.2.5.7): a port's partition keys in blocks of 32
// big-endian 16-bit entries; bit 15 of an entry is the membership type (1 full, 0 limited).
// AttributeModifier: block number (15-0); on a switch also the port number (31-16), 0 for the
// management port and for CAs.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_P_KEY_TABLE = 0x0016;
constexpr std::size_t kPKeyBlockEntries = 32;  // IB_NUM_PKEY_ELEMENTS_IN_BLOCK
constexpr std::uint16_t IB_DEFAULT_PKEY = 0xFFFF;
constexpr std::uint16_t IB_PKEY_TYPE_MASK = 0x8000;  // full member
constexpr std::uint16_t IB_PKEY_BASE_MASK = 0x7FFF;

// One decoded block; an entry 0 is an unused slot.
struct PKeyTableBlock {
  std::array<std::uint16_t, kPKeyBlockEntries> p_keys{};
};

// The AttributeModifier's fields.
struct PKeyAttributeModifier {
  std::uint16_t block = 0;
  PortNum port = 0;
};

std::uint32_t encode_p_key_attribute_modifier(const PKeyAttributeModifier& m);
PKeyAttributeModifier decode_p_key_attribute_modifier(std::uint32_t attribute_modifier);

SmpData encode_p_key_table(const PKeyTableBlock& block);
PKeyTableBlock decode_p_key_table(const std::uint8_t* in64);

}  // namespace ibfsim
