// The UDP header (RFC 768), 8 bytes: source port, destination port, Length (header and data),
// Checksum (internet_checksum.h over the IP pseudo-header, the header with this field 0, and the
// data; a computed 0 is sent as 0xFFFF; 0 sent over IPv4 means "none"). Big-endian.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "sim/core/packet.h"
#include "sim/ethernet/ip_address.h"

namespace ibfsim {

constexpr std::size_t kUdpHeaderBytes = 8;

struct UdpHeader {
  std::uint16_t src_port = 0;
  std::uint16_t dst_port = 0;
  std::uint16_t length = 0;
  std::uint16_t checksum = 0;
};

void encode_udp_header(const UdpHeader& h, std::uint8_t* out8);  // writes the checksum as given
UdpHeader decode_udp_header(const std::uint8_t* in8);

// The checksum of a datagram from `src` to `dst` (same IP version) whose header is `udp8` (its
// checksum field is taken as 0) and whose data is the runs (elided runs are zeros).
std::uint16_t udp_checksum(const IpAddress& src, const IpAddress& dst, const std::uint8_t* udp8,
                           std::initializer_list<ByteRun> data);

}  // namespace ibfsim
