// IPoIB connected mode (RFC 4755 and Linux's ipoib_cm): what two interfaces exchange to open an
// RC connection for IP packets, pure functions over plain data.
//   - An interface that takes connected mode says so in its 20-byte hardware address (ARP): bit 7
//     of byte 0, the byte before its UD QPN (kIpoibHwConnected; ipoib_header.h).
//   - The active side's REQ names the service ID 0x1000000000000000 | the peer's UD QPN (the
//     peer listens on its own), and both the REQ and the REP carry 8 bytes of private data: the
//     sender's UD QPN and the receive buffer it posts (the connected MTU plus the 4-byte IPoIB
//     header), each a big-endian 32-bit word.
//   - Every IP packet goes as one RC SEND: the 4-byte IPoIB header, then the IP datagram, up to
//     the connected MTU (65520 at most: a 64 KiB buffer less 16 bytes).
#pragma once
#include <array>
#include <cstdint>

#include "sim/transport/ipoib/ipoib_header.h"

namespace ibfsim {

constexpr std::uint8_t kIpoibHwConnected = 0x80;  // IpoibHwAddress::flags: connected mode offered
constexpr std::uint64_t kIpoibCmServiceIdBase = 0x1000000000000000ull;
constexpr std::uint32_t kIpoibCmMaxMtu = 65520;
constexpr std::uint32_t kIpoibCmMinMtu = 2044;  // no smaller than datagram mode's over a 2 KiB IB MTU
constexpr std::size_t kIpoibCmDataBytes = 8;

// The service ID an interface with UD QP `ud_qpn` listens on.
constexpr std::uint64_t ipoib_cm_service_id(std::uint32_t ud_qpn) {
  return kIpoibCmServiceIdBase | (ud_qpn & 0xFFFFFFu);
}

struct IpoibCmData {
  std::uint32_t qpn = 0;  // the sender's UD QPN
  std::uint32_t buffer = 0;  // the receive buffer it posts: connected MTU + 4
  bool operator==(const IpoibCmData& o) const { return qpn == o.qpn && buffer == o.buffer; }
};

void encode_ipoib_cm_data(const IpoibCmData& d, std::uint8_t* out8);
IpoibCmData decode_ipoib_cm_data(const std::uint8_t* in8);

}  // namespace ibfsim
