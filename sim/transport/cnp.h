// The Congestion Notification Packet (IBA Vol1 Annex A10): what a destination CA sends back to the
// source QP of a FECN-marked packet when no response of its own can carry the BECN.
//   LRH (LNH 2, or 3 with a GRH) | [GRH] | BTH | ICRC | VCRC      (26 bytes local, 66 global)
// BTH: OpCode 0x80 (CNP), BECN = 1, FECN = 0, P_Key of the marked packet, DestQP = the QP that sent
// it (UD: DETH.SrcQP; RC/UC: the connected QP), PSN 0, other fields 0. No extended header, no
// payload (hfi1 builds the same; PktLen 6 words locally). A GRH, when the marked packet had one,
// swaps its GIDs. The LRH goes on the marked packet's SL, from its DLID to its SLID.
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/network/grh.h"

namespace ibfsim {

struct CnpFields {
  std::uint8_t vl = 0, sl = 0;
  Lid dlid = 0, slid = 0;
  std::uint16_t p_key = 0xFFFF;
  Qpn dest_qp = 0;
  std::optional<Grh> grh;  // GRH fields to send (PayLen and NxtHdr are filled in)
};

// Writes the whole CNP into p (headers, lengths, ICRC, VCRC); bookkeeping fields are left alone.
void build_cnp(Packet& p, const CnpFields& f);

// The offset of the BTH in p (8, or 48 after a GRH); 0 for raw packets (no BTH).
std::size_t bth_offset(const Packet& p);
// True if p is an IBA packet with OpCode 0x80.
bool is_cnp(const Packet& p);

}  // namespace ibfsim
