// The Ethernet frame check sequence and the minimum frame (IEEE 802.3 clause 3): the FCS is the
// CRC-32 of core/crc32.h over every byte from the destination MAC through the last pad byte, sent
// least significant byte first. A frame (destination MAC .. FCS) is at least 64 bytes: shorter
// contents are padded with zeros before the FCS (the pad is not part of the IP datagram; its
// length fields say where it ends).
#pragma once
#include <cstddef>
#include <cstdint>
#include <initializer_list>
#include <vector>

#include "sim/core/packet.h"

namespace ibfsim {

constexpr std::size_t kEthernetFcsBytes = 4;
constexpr std::size_t kEthernetMinFrameBytes = 64;  // destination MAC .. FCS

// Zero bytes to add after `content_bytes` (destination MAC .. end of the datagram) so that the
// frame with its FCS is kEthernetMinFrameBytes long.
inline std::size_t ethernet_pad_bytes(std::size_t content_bytes) {
  constexpr std::size_t kMinContent = kEthernetMinFrameBytes - kEthernetFcsBytes;
  return content_bytes < kMinContent ? kMinContent - content_bytes : 0;
}

// The FCS over the concatenation of runs (content and pad; elided runs are zeros, O(log len)).
std::uint32_t ethernet_fcs(std::initializer_list<ByteRun> runs);

// Pads `frame` (destination MAC .. end of the datagram) to the minimum and appends its FCS.
void append_ethernet_fcs(std::vector<std::uint8_t>& frame);

// Whether the last 4 bytes of a frame of `len` bytes are the FCS of the bytes before them.
bool ethernet_fcs_ok(const std::uint8_t* frame, std::size_t len);

}  // namespace ibfsim
