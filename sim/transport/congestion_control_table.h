// The Congestion Control Table of a CA port (IBA Vol1 Annex A10): entry i says how far apart the
// packets of a flow whose congestion control index (CCTI) is i must be. Each entry is 16 bits,
// CCT_Shift (15-14) | CCT_Multiplier (13-0); after a packet that takes Tp to send, the next
// packet of the same flow may start no sooner than
//   IPD = (Tp >> CCT_Shift) x CCT_Multiplier
// after its end (the rule hfi1 quotes from the IBTA spec). Here Tp is counted in edges of the
// port's symbol clock (the packet's serialization, delimiters included), so the delay is a whole
// number of edges and the next start lands on an edge. Entry 0 is normally 0:0 (no delay).
// CCTI_Limit is the largest valid index; the table holds entries 0..CCTI_Limit.
#pragma once
#include <cstdint>
#include <vector>

namespace ibfsim {

struct CctEntry {
  std::uint8_t shift = 0;         // 2 bits
  std::uint16_t multiplier = 0;   // 14 bits
  bool operator==(const CctEntry& o) const { return shift == o.shift && multiplier == o.multiplier; }
};

constexpr std::uint16_t kCctMultiplierMax = 0x3FFF;

inline std::uint16_t encode_cct_entry(const CctEntry& e) {
  return static_cast<std::uint16_t>((e.shift & 3) << 14 | (e.multiplier & kCctMultiplierMax));
}
inline CctEntry decode_cct_entry(std::uint16_t v) {
  return CctEntry{static_cast<std::uint8_t>(v >> 14), static_cast<std::uint16_t>(v & kCctMultiplierMax)};
}

// The inter-packet delay in edges after a packet of `packet_edges` edges.
inline std::uint64_t inter_packet_delay_edges(const CctEntry& e, std::uint64_t packet_edges) {
  return (packet_edges >> e.shift) * e.multiplier;
}

struct CongestionControlTable {
  std::uint16_t ccti_limit = 0;
  std::vector<CctEntry> entries;  // index = CCTI; at least ccti_limit + 1 entries once configured

  // The entry of `ccti` (clamped to the limit; an index past the entries given means no delay).
  CctEntry at(std::uint16_t ccti) const {
    if (ccti > ccti_limit) ccti = ccti_limit;
    return ccti < entries.size() ? entries[ccti] : CctEntry{};
  }
};

// The documented formula of scenario key congestion_control.cct.formula: linear (docs/scenario.md):
// entry i = shift:(i x step), i = 0..limit, multipliers capped at 16383. With shift s the delay
// grows by step x (Tp >> s) per index, so a flow at index i sends at about 1 / (1 + i x step / 2^s)
// of its link rate.
CongestionControlTable linear_cct(std::uint16_t limit, std::uint8_t shift, std::uint16_t step);

}  // namespace ibfsim
