// Identifier types of the fabric. Plain integers with names: the codecs take and return them.
#pragma once
#include <cstdint>

namespace ibfsim {

using Lid = std::uint16_t;   // 0 reserved, 0x0001-0xBFFF unicast, 0xC000-0xFFFE multicast, 0xFFFF permissive
using Guid = std::uint64_t;  // EUI-64 node or port GUID
using Qpn = std::uint32_t;   // 24-bit queue pair number
using Psn = std::uint32_t;   // 24-bit packet sequence number
using PortNum = std::uint8_t;  // physical port number; 0 is a switch's management port

constexpr Lid kLidReserved = 0x0000;
constexpr Lid kLidUnicastMax = 0xBFFF;
constexpr Lid kLidPermissive = 0xFFFF;
constexpr Qpn kQpnMask = 0xFFFFFF;

inline bool is_unicast_lid(Lid lid) { return lid >= 1 && lid <= kLidUnicastMax; }
inline bool is_multicast_lid(Lid lid) { return lid >= 0xC000 && lid <= 0xFFFE; }

}  // namespace ibfsim
