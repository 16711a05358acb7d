// How long an Ethernet frame occupies a link (IEEE 802.3 clause 4): the MAC sends 7 bytes of
// preamble and the start frame delimiter, the frame (destination MAC .. FCS), then leaves at least
// 12 bytes of inter-frame gap before the next preamble. On the byte clock of phy/ethernet_speed.h
// (one byte per edge) a frame of B bytes occupies B + 20 edges: 1,078 bytes on 100GbE are
// 1,098 x 80 ps = 87.84 ns; 64 bytes are 84 x 80 ps = 6.72 ns, 148,809,523 frames a second.
// The PCS's block alignment and deficit idle count shift single gaps by a few bytes while keeping
// their average at exactly 12: modelled at the average.
#pragma once
#include <cstdint>

#include "sim/core/time.h"
#include "sim/phy/ethernet_speed.h"

namespace ibfsim {

constexpr std::uint64_t kEthernetPreambleBytes = 8;  // 7 preamble + SFD
constexpr std::uint64_t kEthernetIfgBytes = 12;      // minimum (and average) inter-frame gap

// Edges from the first preamble byte of a frame to the first preamble byte the MAC may send next.
constexpr std::uint64_t ethernet_wire_edges(std::uint64_t frame_bytes) {
  return kEthernetPreambleBytes + frame_bytes + kEthernetIfgBytes;
}
// Edges from the first preamble byte until the frame's first `bytes` bytes have been sent: a
// cut-through switch can decide once its headers are in; the whole frame is in after
// ethernet_edges_until(frame_bytes).
constexpr std::uint64_t ethernet_edges_until(std::uint64_t bytes) { return kEthernetPreambleBytes + bytes; }

// The time a frame occupies the link: ethernet_wire_edges x the byte period.
inline Time ethernet_wire_time(const EthernetRate& rate, std::uint64_t frame_bytes) {
  return ethernet_wire_edges(frame_bytes) * rate.info().byte_period_fs;
}

// When a receiver has the first `bytes` bytes of a frame whose preamble started on edge `start`
// (counted from link up), with the link's FEC: the edge its decoder hands them on (before the
// cable's propagation).
inline std::uint64_t ethernet_available_edge(const FecTiming& fec, std::uint64_t start, std::uint64_t bytes) {
  return fec.available(start + ethernet_edges_until(bytes));
}

}  // namespace ibfsim
