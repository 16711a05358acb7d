// NodeDescription (SMP attribute 0x0010, IBA Vol1 14.2.5.2): 64 bytes of UTF-8 text naming the
// node, padded with NULs and not NUL-terminated when all 64 bytes are used. AttributeModifier 0.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>

#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_NODE_DESC = 0x0010;
constexpr std::size_t kNodeDescriptionBytes = 64;

// A decoded NodeDescription. Encoding keeps the first 64 bytes of `text`.
struct NodeDescription {
  std::string text;
};

SmpData encode_node_description(const NodeDescription& nd);
// The text up to the first NUL, or all 64 bytes.
NodeDescription decode_node_description(const std::uint8_t* in64);

}  // namespace ibfsim
