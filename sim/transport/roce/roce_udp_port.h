// The UDP ports of RoCE v2 (IBA Annex A17): every frame goes to the IANA port 4791; the source
// port carries no meaning for the transport and is free for ECMP entropy, so that the flows of
// different QPs spread over a fabric's equal-cost paths while each QP's packets keep one path
// (and their order).
//
// The derivation (the convention of Linux's RDMA core, so that simulated captures look like a
// real NIC's): a 20-bit flow label from the two QP numbers of a connection,
//   v = local_qpn x remote_qpn (48 bits);  v ^= v >> 20;  v ^= v >> 40;  label = v mod 2^20,
// symmetric in the two QPNs so both directions of a connection carry the same label; then the
// port, in the dynamic range 0xC000-0xFFFF:
//   port = 0xC000 | ((label mod 2^14) xor (label >> 14)).
// A connected QP (RC, UC) uses its own and its peer's QPN; a datagram (UD) its source QPN and the
// packet's DestQP. The same label is the IPv6 Flow Label of RoCE v2 over IPv6.
#pragma once
#include <cstdint>

#include "sim/core/ids.h"

namespace ibfsim {

constexpr std::uint16_t kRoceV2UdpPort = 4791;
constexpr std::uint16_t kRoceUdpSourcePortMin = 0xC000;

std::uint32_t roce_flow_label(Qpn local_qpn, Qpn remote_qpn);
std::uint16_t roce_udp_source_port(std::uint32_t flow_label);
inline std::uint16_t roce_udp_source_port(Qpn local_qpn, Qpn remote_qpn) {
  return roce_udp_source_port(roce_flow_label(local_qpn, remote_qpn));
}

}  // namespace ibfsim
