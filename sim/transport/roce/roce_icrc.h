// The ICRC of a RoCE v2 frame (IBA Annex A17): the ICRC's CRC (transport/icrc.h, the same code as
// IB's) over 8 bytes of 1s standing in for an LRH, then every byte from the first IP header byte
// through the pad, with the fields a router may change forced to 1s:
//   IPv4: byte 1 (DSCP, ECN), byte 8 (TTL), bytes 10-11 (Header Checksum);
//   IPv6: Traffic Class and Flow Label (byte 0 bits 3-0, bytes 1-3), byte 7 (Hop Limit);
//   UDP: bytes 6-7 (Checksum);  BTH: byte 4 (FECN, BECN, reserved), as in IB's ICRC.
// The Ethernet header, its tag, the Ethernet pad and the FCS are not covered. Sent least
// significant byte first, after the pad.
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>

#include "sim/core/packet.h"

namespace ibfsim {

// The ICRC of a frame whose headers from the IP header through the last extended header are the
// `header_len` bytes at `ip` (the version nibble of ip[0] selects the masks), and whose payload
// and pad are `body` (elided runs are zeros).
std::uint32_t compute_roce_icrc(const std::uint8_t* ip, std::size_t header_len,
                                std::initializer_list<ByteRun> body);

}  // namespace ibfsim
