// LRH, the 8-byte local route header that starts every packet (IBA Vol1 ch. 7):
//   byte 0: VL (7-4) | LVer (3-0); byte 1: SL (7-4) | reserved (3-2) | LNH (1-0);
//   bytes 2-3 DLID; bytes 4-5: reserved (15-11) | PktLen (10-0, 4-byte words LRH..ICRC);
//   bytes 6-7 SLID. Big-endian.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/big_endian.h"
#include "sim/core/ids.h"

namespace ibfsim {

constexpr std::size_t kLrhBytes = 8;

// Link Next Header: what follows the LRH.
constexpr std::uint8_t kLnhRaw = 0;        // raw packet (RWH)
constexpr std::uint8_t kLnhRawIpv6 = 1;    // raw IPv6
constexpr std::uint8_t kLnhIbaLocal = 2;   // BTH
constexpr std::uint8_t kLnhIbaGlobal = 3;  // GRH, then BTH

constexpr std::uint16_t kLrhPktLenMask = 0x07FF;

// A decoded LRH. Fields wider than their bit width are masked on encode; reserved bits are 0.
struct Lrh {
  std::uint8_t vl = 0;
  std::uint8_t lver = 0;
  std::uint8_t sl = 0;
  std::uint8_t lnh = kLnhIbaLocal;
  Lid dlid = 0;
  std::uint16_t pkt_len = 0;
  Lid slid = 0;
};

void encode_lrh(const Lrh& lrh, std::uint8_t* out8);
Lrh decode_lrh(const std::uint8_t* in8);

// Single-field access for the switch hot path, without decoding the whole header.
inline Lid lrh_dlid(const std::uint8_t* lrh) { return load_be16(lrh + 2); }
inline Lid lrh_slid(const std::uint8_t* lrh) { return load_be16(lrh + 6); }
inline std::uint8_t lrh_vl(const std::uint8_t* lrh) { return lrh[0] >> 4; }
inline std::uint8_t lrh_lver(const std::uint8_t* lrh) { return lrh[0] & 0x0F; }
// Whether the packet travels on VL15: a management packet (an SMP), as VL15 carries nothing else (R1).
template <class PacketT>
bool is_management_packet(const PacketT& p) {
  return lrh_vl(p.header.data()) == 15;
}
inline void set_lrh_vl(std::uint8_t* lrh, std::uint8_t vl) {
  lrh[0] = static_cast<std::uint8_t>((vl & 0x0F) << 4 | (lrh[0] & 0x0F));
}
inline std::uint8_t lrh_sl(const std::uint8_t* lrh) { return lrh[1] >> 4; }
inline std::uint8_t lrh_lnh(const std::uint8_t* lrh) { return lrh[1] & 0x03; }

}  // namespace ibfsim
