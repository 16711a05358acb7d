// The IP traffic class byte (IPv4 ToS, IPv6 Traffic Class): DSCP (7-2, RFC 2474) | ECN (1-0,
// RFC 3168). Switches map DSCP to a priority; ECN-capable senders mark ECT(0) or ECT(1) and a
// congested switch rewrites either to CE.
#pragma once
#include <cstdint>

namespace ibfsim {

namespace ecn {
constexpr std::uint8_t kNotEct = 0;
constexpr std::uint8_t kEct1 = 1;
constexpr std::uint8_t kEct0 = 2;
constexpr std::uint8_t kCe = 3;
}  // namespace ecn

constexpr std::uint8_t traffic_class_byte(std::uint8_t dscp, std::uint8_t ecn) {
  return static_cast<std::uint8_t>((dscp & 0x3F) << 2 | (ecn & 0x03));
}
constexpr std::uint8_t traffic_class_dscp(std::uint8_t tc) { return tc >> 2; }
constexpr std::uint8_t traffic_class_ecn(std::uint8_t tc) { return tc & 0x03; }

}  // namespace ibfsim
