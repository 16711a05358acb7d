// Link speeds and widths (IBA Vol 2) and the symbol clock each pair runs on.
//
// The symbol clock of a link is the time one lane takes to carry one code unit:
//   8b/10b  (SDR, DDR, QDR): one 10-bit symbol = 1 byte per lane.
//   64b/66b (FDR10, FDR, EDR): one 66-bit block = 8 bytes per lane.
//   PAM4 + RS-FEC (HDR, NDR, XDR): one 64-bit data block per lane at the post-FEC data rate
//     (64b/66b -> 256b/257b -> RS(544,514): 8 bytes cost exactly 68 line bits; fec.h).
// All lanes run in lockstep, so a link of width w moves w * bytes_per_lane_symbol bytes per edge.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/symbol_clock.h"

namespace ibfsim {

enum class LinkSpeed { kSdr, kDdr, kQdr, kFdr10, kFdr, kEdr, kHdr, kNdr, kXdr };
enum class LineCode { k8b10b, k64b66b, kPam4RsFec };

struct LinkSpeedInfo {
  LinkSpeed speed;
  const char* name;                // "EDR"
  LineCode line_code;
  std::uint64_t symbol_num_fs;     // symbol period = num / den fs
  std::uint64_t symbol_den;
  unsigned bytes_per_lane_symbol;  // 1 for 8b/10b, 8 otherwise
  double lane_data_gbps;           // for reports
};

const LinkSpeedInfo& link_speed_info(LinkSpeed s);
std::optional<LinkSpeed> parse_link_speed(std::string_view name);  // "SDR".."XDR", case-insensitive
// Widths 1, 2, 4, 8, 12 lanes; parses "4x" or "4".
std::optional<unsigned> parse_link_width(std::string_view text);
const char* line_code_name(LineCode c);

// The rate of one configured link: speed x width.
struct LinkRate {
  LinkSpeed speed = LinkSpeed::kEdr;
  unsigned lanes = 4;

  const LinkSpeedInfo& info() const { return link_speed_info(speed); }
  SymbolClock clock() const { return SymbolClock(info().symbol_num_fs, info().symbol_den); }
  // Bytes (delimiters included) the link moves per symbol-clock edge.
  unsigned bytes_per_symbol() const { return lanes * info().bytes_per_lane_symbol; }
  // Data rate in bit/s, exact as a rational for reports: lanes * lane rate.
  double data_gbps() const { return lanes * info().lane_data_gbps; }
  std::string name() const;  // "4x EDR"
};

}  // namespace ibfsim
