// The IPv6 header (RFC 8200), 40 bytes:
//   bytes 0-3: Version (31-28) = 6 | Traffic Class (27-20: DSCP | ECN) | Flow Label (19-0);
//   bytes 4-5 Payload Length (bytes after this header); byte 6 Next Header (17 = UDP); byte 7 Hop
//   Limit; bytes 8-23 source, 24-39 destination address. Big-endian.
// IBA defined its GRH as exactly this header (IPVer, TClass, FlowLabel, PayLen, NxtHdr, HopLmt,
// SGID, DGID), so an IPv6 header is a Grh written and read by the GRH codec (network/grh.h).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/ethernet/ip_traffic_class.h"
#include "sim/network/grh.h"

namespace ibfsim {

constexpr std::size_t kIpv6HeaderBytes = kGrhBytes;
constexpr std::uint8_t kIpv6Version = 6;

// Fields: ipver, tclass (traffic_class_byte(dscp, ecn)), flow_label, pay_len, nxt_hdr, hop_lmt,
// sgid (source address), dgid (destination address).
using Ipv6Header = Grh;

inline void encode_ipv6_header(const Ipv6Header& h, std::uint8_t* out40) { encode_grh(h, out40); }
inline Ipv6Header decode_ipv6_header(const std::uint8_t* in40) { return decode_grh(in40); }

// Single-field access for a switch's hot path (header at `ip`).
inline std::uint8_t ipv6_traffic_class(const std::uint8_t* ip) {
  return static_cast<std::uint8_t>((ip[0] & 0x0F) << 4 | ip[1] >> 4);
}
inline std::uint8_t ipv6_ecn(const std::uint8_t* ip) { return traffic_class_ecn(ipv6_traffic_class(ip)); }
inline void set_ipv6_ecn(std::uint8_t* ip, std::uint8_t e) {
  ip[1] = static_cast<std::uint8_t>((ip[1] & 0xCF) | (e & 0x03) << 4);
}
inline std::uint8_t ipv6_hop_limit(const std::uint8_t* ip) { return ip[7]; }
inline void set_ipv6_hop_limit(std::uint8_t* ip, std::uint8_t hops) { ip[7] = hops; }

}  // namespace ibfsim
