// The IPv4 header (RFC 791) without options, 20 bytes:
//   byte 0: Version (7-4) = 4 | IHL (3-0) = 5; byte 1: DSCP (7-2) | ECN (1-0); bytes 2-3 Total
//   Length (header and data); bytes 4-5 Identification; bytes 6-7: reserved (15) | DF (14) |
//   MF (13) | Fragment Offset (12-0); byte 8 TTL; byte 9 Protocol (17 = UDP); bytes 10-11 Header
//   Checksum (internet_checksum.h, over the 20 bytes with this field 0); bytes 12-15 source,
//   16-19 destination address. Big-endian.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace ibfsim {

constexpr std::size_t kIpv4HeaderBytes = 20;
constexpr std::uint8_t kIpProtocolUdp = 17;
constexpr std::uint8_t kIpProtocolTcp = 6;

struct Ipv4Header {
  std::uint8_t version = 4;  // decoded as found; encode always writes 4
  std::uint8_t ihl = 5;      // header length in 4-byte words; encode always writes 5 (no options)
  std::uint8_t dscp = 0;
  std::uint8_t ecn = 0;
  std::uint16_t total_length = 0;
  std::uint16_t identification = 0;
  bool dont_fragment = true;  // RoCE v2 datagrams are never fragmented
  bool more_fragments = false;
  std::uint16_t fragment_offset = 0;
  std::uint8_t ttl = 64;
  std::uint8_t protocol = kIpProtocolUdp;
  std::uint16_t checksum = 0;  // decoded as found; encode computes it
  std::array<std::uint8_t, 4> src{};
  std::array<std::uint8_t, 4> dst{};
};

// Writes the 20 bytes, the header checksum computed over them.
void encode_ipv4_header(const Ipv4Header& h, std::uint8_t* out20);
Ipv4Header decode_ipv4_header(const std::uint8_t* in20);
// Whether the checksum of the header at `hdr` (IHL x 4 bytes) is right.
bool ipv4_checksum_ok(const std::uint8_t* hdr, std::size_t header_bytes = kIpv4HeaderBytes);

// Single-field access for a switch's hot path (header at `ip`, no options).
inline std::uint8_t ipv4_ttl(const std::uint8_t* ip) { return ip[8]; }
inline std::uint8_t ipv4_ecn(const std::uint8_t* ip) { return ip[1] & 0x03; }
inline std::uint8_t ipv4_dscp(const std::uint8_t* ip) { return ip[1] >> 2; }
// Rewrites a field and the header checksum with it.
void set_ipv4_ttl(std::uint8_t* ip, std::uint8_t ttl);
void set_ipv4_ecn(std::uint8_t* ip, std::uint8_t ecn);

}  // namespace ibfsim
