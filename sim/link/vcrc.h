// VCRC: the variant CRC that ends every data packet and is regenerated on every link (VL may
// change per hop). CRC-16, polynomial 0x100B processed LSB first (reflected 0xD008), init 0xFFFF,
// final xor 0xFFFF; check value "123456789" -> 0x0A3D. The same CRC over a link packet's first
// four bytes is the LPCRC.
#pragma once
#include <cstdint>
#include <initializer_list>

#include "sim/core/packet.h"

namespace ibfsim {

constexpr std::uint16_t kVcrcReflectedPoly = 0xD008;

// The CRC over the concatenation of runs; a run with data == nullptr counts as len zero bytes and
// costs O(log len).
std::uint16_t vcrc16(std::initializer_list<ByteRun> runs);
// The same CRC over a short run of real bytes, without the run machinery.
std::uint16_t vcrc16_bytes(const std::uint8_t* data, std::size_t len);
// LPCRC over the 4 bytes of a link packet, from four 256-entry tables: a CRC is affine in its input,
// so crc(b0 b1 b2 b3) = crc(0000) ^ T0[b0] ^ T1[b1] ^ T2[b2] ^ T3[b3], with T built by Boost.CRC once.
// Every hop sends and receives a flow-control packet, so this is on the hot path.
std::uint16_t lpcrc16(const std::uint8_t* four);

// Wire byte order of VCRC and LPCRC. The reference packets (docs/compliance.md) send the
// least-significant byte first, like the ICRC, but no public source pins it down: these two
// functions are the only place that knows, so flipping it is a one-line change.
inline void store_crc16(std::uint8_t* out2, std::uint16_t crc) {
  out2[0] = static_cast<std::uint8_t>(crc);
  out2[1] = static_cast<std::uint8_t>(crc >> 8);
}
inline std::uint16_t load_crc16(const std::uint8_t* in2) {
  return static_cast<std::uint16_t>(in2[0] | (in2[1] << 8));
}

// VCRC over header, payload, pad and (if has_icrc) ICRC of p.
std::uint16_t packet_vcrc(const Packet& p);
// Computes the VCRC and stores it into p.vcrc in wire order.
void write_vcrc(Packet& p);
// True if p.vcrc matches the packet's bytes.
bool vcrc_ok(const Packet& p);

}  // namespace ibfsim
