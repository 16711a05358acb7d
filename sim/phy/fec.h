// Forward error correction on a link (IBA Vol 2): which code a link runs, and when the receiver
// has the data a codeword carries.
//
// Codes:
//   FDR  optional FC(2112,2080) (Firecode): 32 64b/66b blocks transcoded to 64b/65b, 32 parity bits.
//   EDR  optional RS(528,514) ("KR4"): 20 blocks of 256b/257b (80 64b/66b blocks), 14 parity
//        symbols of 10 bits.
//   HDR, NDR, XDR  RS(544,514) ("KP4"), always on: 20 blocks of 256b/257b, 30 parity symbols.
// Each code costs exactly the line rate the speed's symbol period already accounts for (link_speed.h):
// 2112/2080 x 65/64 = 528/514 x 257/256 = 66/64 at FDR and EDR, so turning their FEC on changes
// no edge; at HDR and above the period is the post-FEC data rate (544/514 x 257/256 = 17/16 of it
// on the line).
//
// Latency: a codeword carries whole 64b/66b blocks of the link's lane streams (one block per lane
// per edge), and each lane carries codewords of its own, back to back from the edge the link came
// up on, all lanes in step: a codeword spans 80 edges (RS) or 32 (Firecode) on every width. The
// receiver can correct, hence use, none of a codeword's data before all of it has arrived, and then
// its decoder takes `decoder_edges` more. So data whose last edge on the line ends at edge e (counted
// from link up) is available at the end of the codeword holding it plus the decoder: a switch sees a
// packet's LRH, and a receiver its tail, that late after propagation. The encoder streams (it adds
// the parity at the codeword's end, already counted in the rate). Codewords spread over the lanes
// as Ethernet's multi-lane PCS does them would shorten the wait on wide links; per-lane codewords are
// this project's reading of IB's per-lane PHY: confirm against Vol 2.
#pragma once
#include <cstdint>
#include <optional>
#include <string_view>

#include "sim/phy/link_speed.h"

namespace ibfsim {

enum class FecCode : std::uint8_t { kNone, kFirecode, kRs528, kRs544 };

const char* fec_code_name(FecCode c);  // "none", "FC(2112,2080)", "RS(528,514)", "RS(544,514)"

// The code a link at `speed` runs with FEC on; kNone where the speed has none (SDR..QDR, FDR10).
FecCode fec_code_of(LinkSpeed speed);
// Whether the speed always runs its FEC (HDR and above: PAM4 lanes need it).
bool fec_required(LinkSpeed speed);
// The code a link at `speed` runs: `requested` on or off, nullopt for the speed's default (its FEC
// where required, none where optional). Off at a speed that requires FEC is the caller's error to
// report; here it gives the required code.
FecCode fec_code_for(LinkSpeed speed, std::optional<bool> requested);

// Edges of one codeword on every lane: 80 for the RS codes, 32 for Firecode, 0 for none.
std::uint64_t fec_codeword_edges(FecCode c);

// When a receiver has data, given the link's code and its decoder's latency in edges.
struct FecTiming {
  FecCode code = FecCode::kNone;
  std::uint64_t codeword_edges = 0;  // 0: no FEC
  std::uint64_t decoder_edges = 0;

  FecTiming() = default;
  FecTiming(FecCode c, std::uint64_t decoder)
      : code(c), codeword_edges(fec_codeword_edges(c)), decoder_edges(c == FecCode::kNone ? 0 : decoder) {}

  bool on() const { return codeword_edges != 0; }
  // The edge (since link up) at which the receiver's decoder hands on data whose last edge on the
  // line ends at edge `end` (since link up): the end of its codeword plus the decoder.
  std::uint64_t available(std::uint64_t end) const {
    if (!on()) return end;
    return (end + codeword_edges - 1) / codeword_edges * codeword_edges + decoder_edges;
  }
};

// A FEC setting as a user writes it: "on" or "off" (any case); nullopt otherwise.
std::optional<bool> parse_fec_setting(std::string_view text);

}  // namespace ibfsim
