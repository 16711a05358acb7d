// IP over InfiniBand, datagram mode (RFC 4391): what an `ib0` interface puts in the payload of a
// UD SEND, and the addresses it uses.
//   - The encapsulation header, 4 bytes before every IP or ARP packet: Type (the EtherType of
//     what follows: 0x0800 IPv4, 0x0806 ARP), 2 bytes, then 2 reserved bytes (zero).
//   - The link-layer (hardware) address of an interface, 20 bytes: byte 0 flags (bit 7: the
//     interface also takes connected mode; reserved otherwise), bytes 1-3 the QPN of its UD QP,
//     bytes 4-19 the port's GID.
//   - The broadcast group of a partition, which every interface of it joins through the SA at
//     start-up: MGID ff12:401b:PPPP:0000:0000:0000:ffff:ffff for IPv4 (ff12: a non-permanent
//     group of link-local scope; 401b: the IPv4 signature; PPPP: the P_Key with its membership bit
//     set), QPN 0xFFFFFF.
//   - The IPoIB MTU: the IB MTU minus the 4-byte header (2044 with a 2 KiB IB MTU).
// All big-endian; pure functions.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/ethernet/ethernet_header.h"  // kEtherTypeIpv4, kEtherTypeArp

namespace ibfsim {

constexpr std::size_t kIpoibHeaderBytes = 4;
constexpr std::size_t kIpoibHwAddressBytes = 20;
// The Q_Key of a partition's broadcast group, Linux ipoib's IPOIB_QKEY: every interface joins
// with it (and stops with an error if the SA's group has another).
constexpr std::uint32_t kIpoibDefaultQKey = 0x00000B1B;
// The default IPoIB MTU: a 2 KiB IB MTU less the header.
constexpr std::uint32_t kIpoibDefaultMtu = 2044;

using IpoibGid = std::array<std::uint8_t, 16>;

struct IpoibHeader {
  std::uint16_t type = kEtherTypeIpv4;
  std::uint16_t reserved = 0;  // decoded as found; encode writes it as given
};

void encode_ipoib_header(const IpoibHeader& h, std::uint8_t* out4);
IpoibHeader decode_ipoib_header(const std::uint8_t* in4);

struct IpoibHwAddress {
  std::uint8_t flags = 0;  // bit 7: connected mode offered (kIpoibHwConnected, ipoib_cm.h)
  std::uint32_t qpn = 0;   // 24 bits
  IpoibGid gid{};
  bool operator==(const IpoibHwAddress& o) const { return flags == o.flags && qpn == o.qpn && gid == o.gid; }
  bool operator!=(const IpoibHwAddress& o) const { return !(*this == o); }
};

void encode_ipoib_hw_address(const IpoibHwAddress& a, std::uint8_t* out20);
IpoibHwAddress decode_ipoib_hw_address(const std::uint8_t* in20);

// The MGID of the IPv4 broadcast group of partition `p_key` (its membership bit is set whatever
// `p_key` says, as ipoib does).
IpoibGid ipoib_broadcast_mgid(std::uint16_t p_key);
// The broadcast address: QPN 0xFFFFFF and the broadcast MGID.
IpoibHwAddress ipoib_broadcast_address(std::uint16_t p_key);

// The largest IP packet an interface sends over an IB MTU of `ib_mtu_bytes` (256 .. 4096).
constexpr std::uint32_t ipoib_mtu(std::uint32_t ib_mtu_bytes) {
  return ib_mtu_bytes - static_cast<std::uint32_t>(kIpoibHeaderBytes);
}

}  // namespace ibfsim
