// The RoCE v2 Congestion Notification Packet (IBA Annex A17, as DCQCN uses it): what a receiver
// sends back to the sender of an ECN-marked (CE) frame, so that the sending QP slows down.
//   Ethernet | [tag] | IP | UDP (dst 4791) | BTH | 16 reserved bytes | ICRC | FCS
// BTH: OpCode 0x81, BECN = 1, FECN = 0, P_Key (0xFFFF, the default partition, unless given),
// DestQP = the QP to throttle (the marked frame's source QP), PSN 0, every other field 0. The 16
// reserved bytes are zeros and count as the CNP's header: no payload, PadCnt 0. (IB's own CNP,
// OpCode 0x80 with no reserved bytes, is transport/cnp.h.) Over IPv4 it is 78 bytes untagged.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/transport/bth.h"
#include "sim/transport/roce/roce_frame.h"

namespace ibfsim {

constexpr std::size_t kRoceCnpReservedBytes = 16;
constexpr std::size_t kRoceCnpTransportBytes = kBthBytes + kRoceCnpReservedBytes;

std::vector<std::uint8_t> build_roce_cnp(const RoceAddressing& a, Qpn dest_qp, std::uint16_t p_key = 0xFFFF);

}  // namespace ibfsim
