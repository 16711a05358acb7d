// ICRC: the invariant CRC of IBA packets, checked only by the destination CA (IBA Vol1 ch. 7).
// zlib/Ethernet CRC-32 (reflected 0xEDB88320, init and final xor 0xFFFFFFFF) over every byte from
// the first LRH byte through the pad, with the fields a switch or router may change forced to 1s:
//   LNH 2 (local):  LRH byte 0 bits 7-4 (VL); BTH byte 4 (FECN/BECN/reserved)
//   LNH 3 (global): the whole LRH; GRH byte 0 bits 3-0 and bytes 1-3 (TClass, FlowLabel),
//                   GRH byte 7 (HopLmt); BTH byte 4
// Sent least-significant byte first (core/crc32.h: the same CRC as Ethernet's FCS). RoCE v2 frames
// use the same CRC over their own masked headers (transport/roce/roce_icrc.h).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "sim/core/packet.h"

namespace ibfsim {

constexpr std::size_t kIcrcBytes = 4;
constexpr std::uint32_t kIcrcReflectedPoly = 0xEDB88320;
constexpr std::size_t kIcrcMaxBodyRuns = 6;

// The ICRC over a header whose first `masked_len` bytes are given already masked (`masked`: a copy
// with the variant fields forced to 1s), its remaining `rest_len` bytes straight from `rest`, then
// the body runs (at most kIcrcMaxBodyRuns; elided runs are zeros, O(log len)). Every ICRC, IB's and
// RoCE v2's, is this function over its own masks.
std::uint32_t icrc_over(const std::uint8_t* masked, std::size_t masked_len, const std::uint8_t* rest,
                        std::size_t rest_len, std::initializer_list<ByteRun> body);

// ICRC of a packet whose headers (LRH..last extended header) are `header` and whose payload and
// pad are `body` (null-data runs are zeros, skipped in O(log len)). The LNH in header[1] selects
// the masks; a raw packet (LNH 0/1, which carries no ICRC) gets none.
std::uint32_t compute_icrc(const std::uint8_t* header, std::size_t header_len,
                           std::initializer_list<ByteRun> body);

std::uint32_t packet_icrc(const Packet& p);
// Computes the ICRC and stores it into p.icrc in wire order.
void write_icrc(Packet& p);
// True if p.icrc matches the packet's bytes.
bool icrc_ok(const Packet& p);

}  // namespace ibfsim
