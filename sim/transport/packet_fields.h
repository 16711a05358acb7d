// Named transport fields of a packet, read through the header codecs, for code outside the
// transport that looks at a packet it is handed (workloads, delivery observers): which QP it is
// for, its opcode and PSN. The BTH follows the LRH, or the LRH and a GRH (the LRH's LNH says which), or in a RoCE v2
// frame the UDP header.
#pragma once
#include <cstddef>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/ethernet/l3_forwarding.h"
#include "sim/network/grh.h"
#include "sim/link/lrh.h"
#include "sim/transport/bth.h"

namespace ibfsim {

inline std::size_t packet_bth_offset(const Packet& p) {
  // RoCE v2: the BTH follows the UDP header (8 bytes, whose ports end the L3 decision bytes).
  if (p.ethernet()) return l3_decision_bytes(p.header.data(), p.header_len) + 4;
  return kLrhBytes + (lrh_lnh(p.header.data()) == kLnhIbaGlobal ? kGrhBytes : 0);
}
inline Qpn packet_dest_qp(const Packet& p) { return bth_dest_qp(p.header.data() + packet_bth_offset(p)); }
inline std::uint8_t packet_opcode(const Packet& p) { return bth_opcode(p.header.data() + packet_bth_offset(p)); }
inline Psn packet_psn(const Packet& p) { return bth_psn(p.header.data() + packet_bth_offset(p)); }

}  // namespace ibfsim
