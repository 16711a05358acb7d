// A TCP segment over IPoIB: the IPoIB header, IPv4 without options and the TCP header with its
// options open the UD SEND's payload, followed by the TCP data. As for UDP (ipoib_datagram.h) the
// data are zeros the simulator does not carry; the TCP checksum is computed over them, so a capture
// decodes as a well-formed segment. Connected mode will carry the same bytes after its own header.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/ethernet/ipv4_header.h"
#include "sim/transport/ipoib/ipoib_header.h"
#include "sim/transport/tcp/tcp_header.h"

namespace ibfsim {

struct IpoibTcpSegment {
  std::array<std::uint8_t, 4> src_ip{}, dst_ip{};
  std::uint16_t identification = 0;
  std::uint8_t ttl = 64;
  std::uint8_t dscp = 0;
  TcpHeader tcp;
  std::uint32_t data_bytes = 0;
};

// Bytes of the headers before the data: 4 + 20 + tcp_header_bytes(s.tcp).
std::size_t ipoib_tcp_headers_bytes(const IpoibTcpSegment& s);
// The whole UD SEND payload of s: its headers (IP and TCP checksums computed) and zero data.
std::vector<std::uint8_t> encode_ipoib_tcp_segment(const IpoibTcpSegment& s);
// The segment `payload` of `len` bytes carries; nullopt unless it is IPoIB type IPv4, IPv4 without
// options carrying TCP with good IP and TCP checksums, and its lengths agree with `len`.
std::optional<IpoibTcpSegment> decode_ipoib_tcp_segment(const std::uint8_t* payload, std::size_t len);

}  // namespace ibfsim
