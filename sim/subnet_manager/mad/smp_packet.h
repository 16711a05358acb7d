// An SMP on the wire (IBA Vol1 13.4, 14.2.1): a UD SEND Only to QP0 on VL15, P_Key 0xFFFF, Q_Key 0,
// source QP 0, with the 256-byte MAD as payload:
//   LRH (VL 15, LNH 2) | BTH (opcode 0x64) | DETH | MAD | ICRC | VCRC: 290 bytes, PktLen 72.
// A directed-route SMP on its directed part has DLID = SLID = 0xFFFF (permissive).
#pragma once
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/subnet_manager/mad/mad_header.h"

namespace ibfsim {

constexpr std::uint8_t kSmpVl = 15;

// Writes the whole packet into p (headers, the MAD as carried payload, ICRC, VCRC), leaving the
// simulation bookkeeping fields alone. SL does not select a VL for SMPs; it is carried as given.
void build_smp_packet(Packet& p, const Mad& mad, Lid dlid, Lid slid, std::uint8_t sl = 0);

}  // namespace ibfsim
