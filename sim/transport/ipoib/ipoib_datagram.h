// A UDP datagram over IPoIB: the 32 bytes that open the UD SEND's payload (the IPoIB header,
// IPv4 without options, UDP), followed by the UDP data. The data are zeros here (a payload the
// simulator does not carry), and the UDP checksum is computed over them, so a capture of the
// packet is a well-formed datagram end to end.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/udp_header.h"
#include "sim/transport/ipoib/ipoib_header.h"

namespace ibfsim {

constexpr std::size_t kIpoibUdpHeadersBytes = kIpoibHeaderBytes + kIpv4HeaderBytes + kUdpHeaderBytes;  // 32

struct IpoibUdpDatagram {
  std::array<std::uint8_t, 4> src_ip{}, dst_ip{};
  std::uint16_t src_port = 0, dst_port = 0;
  std::uint16_t identification = 0;
  std::uint8_t ttl = 64;
  std::uint8_t dscp = 0;
  std::uint32_t data_bytes = 0;  // UDP data after the headers
};

// The UD SEND payload of datagram d: 32 + d.data_bytes bytes.
constexpr std::uint32_t ipoib_udp_payload_bytes(std::uint32_t data_bytes) {
  return static_cast<std::uint32_t>(kIpoibUdpHeadersBytes) + data_bytes;
}
// The most UDP data one datagram carries without IP fragmentation over an IPoIB MTU (an IP
// packet of at most `ipoib_mtu` bytes): 2044 - 28 = 2016 by default.
constexpr std::uint32_t ipoib_udp_max_data(std::uint32_t ipoib_mtu) {
  return ipoib_mtu - static_cast<std::uint32_t>(kIpv4HeaderBytes + kUdpHeaderBytes);
}

// Writes the 32 header bytes of d (IP header checksum and UDP checksum over zero data included).
void encode_ipoib_udp_headers(const IpoibUdpDatagram& d, std::uint8_t* out32);
// The datagram whose headers open `payload` of `len` bytes; nullopt unless it is IPoIB type IPv4,
// IPv4 without options carrying UDP with a good header checksum, and its lengths agree with `len`.
std::optional<IpoibUdpDatagram> decode_ipoib_udp(const std::uint8_t* payload, std::size_t len);

}  // namespace ibfsim
