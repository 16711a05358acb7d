// A General Management Packet on the wire (IBA Vol1 13.4): a UD SEND Only to QP1
// (the GSI) on a data VL, with the 256-byte MAD as payload:
//   LRH (VL from the sender's SL->VL table, LNH 2) | BTH (opcode 0x64, DestQP 1) |
//   DETH (Q_Key 0x80010000, SrcQP 1) | MAD | ICRC | VCRC: 290 bytes, PktLen 72.
// Unlike SMPs (VL15, QP0) GMPs are LID-routed only and take data-VL credits like any data packet.
// The Congestion Control MADs (class 0x21, cc_mad.h) travel this way.
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/link/lrh.h"
#include "sim/subnet_manager/mad/mad_header.h"
#include "sim/transport/q_key.h"  // kGsiQKey: QP1's well-known Q_Key (R36)

namespace ibfsim {

constexpr Qpn kGsiQp = 1;

struct GmpAddress {
  Lid dlid = 0, slid = 0;
  std::uint8_t sl = 0, vl = 0;  // vl: the data VL the sender's SL->VL table gives sl
  std::uint16_t p_key = 0xFFFF;
};

// Writes the whole packet into p (headers, the MAD as carried payload, ICRC, VCRC), leaving the
// simulation bookkeeping fields alone. `a.vl` must be a data VL (0..14).
void build_gmp_packet(Packet& p, const Mad& mad, const GmpAddress& a);

// A GMP as QP1 receives it.
struct ReceivedGmp {
  Mad mad{};
  Lrh lrh;
  Qpn src_qp = 0;
};

// The MAD of p when p is a GMP QP1 takes: a UD SEND Only to QP1 on a data VL with Q_Key
// 0x80010000 carrying a 256-byte BaseVersion 1 MAD of a GSI class (R36, R38); nullopt otherwise
// (the GSI discards it). Needs the payload carried (Packet::payload).
std::optional<ReceivedGmp> parse_gmp_packet(const Packet& p);

}  // namespace ibfsim
