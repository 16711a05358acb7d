// The IPoIB encapsulation header (type IPv4) and the option-less IPv4 header behind it: the layer
// every IPoIB datagram mode packet shares, whatever it carries (UDP: ipoib_datagram.h; TCP:
// ipoib_tcp_segment.h). Pure codecs.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sim/ethernet/ip_address.h"
#include "sim/ethernet/ipv4_header.h"

namespace ibfsim {

// What the IPv4 header says beyond its protocol and length.
struct IpoibIpv4Fields {
  std::array<std::uint8_t, 4> src_ip, dst_ip;
  std::uint16_t identification;
  std::uint8_t ttl, dscp;
};

// Writes the 4-byte IPoIB header and the 20-byte IPv4 header (checksum computed) of a packet
// carrying `l4_bytes` of `protocol` at `out` (24 bytes).
void encode_ipoib_ipv4(const IpoibIpv4Fields& f, std::uint8_t protocol, std::uint32_t l4_bytes, std::uint8_t* out);
// The IPv4 header behind the IPoIB header opening `payload` of `len` bytes (at least 24); nullopt
// unless the IPoIB type is IPv4, the IPv4 header has no options, carries `protocol`, has a good
// checksum and a total length of len - 4.
std::optional<Ipv4Header> decode_ipoib_ipv4(const std::uint8_t* payload, std::size_t len, std::uint8_t protocol);

inline IpAddress ip_address_of(const std::array<std::uint8_t, 4>& a) { return IpAddress::v4(a[0], a[1], a[2], a[3]); }

}  // namespace ibfsim
