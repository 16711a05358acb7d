// A RoCE v2 frame held in a Packet with Ethernet framing (core/packet.h): `header` from the
// destination MAC through the last extended header, the payload (carried or elided), pad, ICRC,
// the Ethernet pad and the FCS in their fields. What moves RoCE frames through a fabric (Ethernet
// ports, wires and switches) moves such packets; the bytes are those build_roce_frame wrote.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/packet.h"
#include "sim/transport/roce/roce_frame.h"

namespace ibfsim {

// Loads a good RoCE v2 frame (parse_roce_frame accepts it) into `p`; `carry_payload` false elides
// the payload, which must then be zeros (an elided payload stands for zeros: the CRCs stay true).
// Returns parse_roce_frame's verdict; `p` is filled only when it is kNone. CNPs are loaded with
// their 16 reserved bytes as payload.
RoceFrameError load_roce_frame(Packet& p, const std::uint8_t* frame, std::size_t len, bool carry_payload);

// Builds a RoCE v2 frame straight into `p` (Ethernet framing): the bytes build_roce_frame writes
// for the same arguments, the payload carried (`payload` not null) or elided (zeros), without
// making the frame whole: headers into p.header, then ICRC, the UDP checksum where it is sent, and
// FCS over the packet's runs. What an Ethernet port builds where an InfiniBand port builds LRH and
// VCRC (build_transport_packet).
void build_roce_packet(Packet& p, const RoceAddressing& a, const TransportHeaders& h, std::uint32_t payload_len,
                       const std::uint8_t* payload);

}  // namespace ibfsim
