// The TCP header (RFC 9293), 20 bytes and options:
//   bytes 0-1 source port, 2-3 destination port, 4-7 Sequence Number, 8-11 Acknowledgment Number,
//   byte 12: Data Offset (7-4, header length in 4-byte words) | reserved; byte 13: flags CWR ECE
//   URG ACK PSH RST SYN FIN (7..0); 14-15 Window; 16-17 Checksum (internet_checksum.h over the
//   IPv4 pseudo-header: addresses, 0, 6, TCP length; then header and data); 18-19 Urgent Pointer.
// Options written here, each group a multiple of 4 bytes so no padding is needed:
//   MSS (kind 2, length 4, RFC 9293), NOP + Window Scale (kind 3, length 3, RFC 7323),
//   NOP NOP + SACK-Permitted (kind 4, length 2, RFC 2018), NOP NOP + SACK (kind 5, 2 + 8n, n <= 4:
//   no timestamps, so 4 blocks fit the 40 option bytes). Big-endian.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <optional>
#include <vector>

#include "sim/core/packet.h"
#include "sim/ethernet/ip_address.h"

namespace ibfsim {

constexpr std::size_t kTcpHeaderBytes = 20;  // without options
constexpr std::size_t kTcpMaxSackBlocks = 4;

enum TcpFlag : std::uint8_t {
  kTcpFin = 0x01, kTcpSyn = 0x02, kTcpRst = 0x04, kTcpPsh = 0x08, kTcpAck = 0x10, kTcpUrg = 0x20,
  kTcpEce = 0x40, kTcpCwr = 0x80,
};

// A SACK block: the sequence numbers of its first byte and of the byte after its last.
struct TcpSackBlock {
  std::uint32_t left = 0, right = 0;
  bool operator==(const TcpSackBlock& o) const { return left == o.left && right == o.right; }
};

struct TcpHeader {
  std::uint16_t src_port = 0, dst_port = 0;
  std::uint32_t seq = 0, ack = 0;
  std::uint8_t flags = 0;
  std::uint16_t window = 0;
  std::uint16_t checksum = 0;  // decoded as found; encode writes it as given
  std::uint16_t urgent = 0;
  std::optional<std::uint16_t> mss;
  std::optional<std::uint8_t> window_scale;
  bool sack_permitted = false;
  std::vector<TcpSackBlock> sack;  // at most kTcpMaxSackBlocks
};

// Header length with its options: 20 + 4 (MSS) + 4 (WS) + 4 (SACK-Permitted) + 4 + 8n (SACK).
std::size_t tcp_header_bytes(const TcpHeader& h);
// Writes tcp_header_bytes(h) bytes.
void encode_tcp_header(const TcpHeader& h, std::uint8_t* out);
// The header at `in` of `len` bytes available; nullopt if the data offset is below 5 or past
// `len`, or an option runs past the header. Unknown options are skipped by their length.
std::optional<TcpHeader> decode_tcp_header(const std::uint8_t* in, std::size_t len);
// Data Offset of the header at `in`, in bytes.
inline std::size_t tcp_data_offset(const std::uint8_t* in) { return static_cast<std::size_t>(in[12] >> 4) * 4; }

// The checksum of a segment from `src` to `dst` whose header is `hdr` of `hdr_len` bytes (its
// checksum field taken as 0) and whose data is the runs (elided runs are zeros).
std::uint16_t tcp_checksum(const IpAddress& src, const IpAddress& dst, const std::uint8_t* hdr, std::size_t hdr_len,
                           std::initializer_list<ByteRun> data);

}  // namespace ibfsim
