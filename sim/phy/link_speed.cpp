#include "sim/phy/link_speed.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>

namespace ibfsim {

namespace {
// Symbol periods: 8b/10b = 10 bits / baud; 64b/66b = 66 bits / baud; PAM4 = 64 data bits at the
// lane data rate (HDR 1.28 ns, NDR 0.64 ns, XDR 0.32 ns). FDR: 66 bits / 14.0625 Gbaud = 14,080,000/3 fs.
const LinkSpeedInfo kSpeeds[] = {
    {LinkSpeed::kSdr, "SDR", LineCode::k8b10b, 4'000'000, 1, 1, 2.0},
    {LinkSpeed::kDdr, "DDR", LineCode::k8b10b, 2'000'000, 1, 1, 4.0},
    {LinkSpeed::kQdr, "QDR", LineCode::k8b10b, 1'000'000, 1, 1, 8.0},
    {LinkSpeed::kFdr10, "FDR10", LineCode::k64b66b, 6'400'000, 1, 8, 10.0},
    {LinkSpeed::kFdr, "FDR", LineCode::k64b66b, 14'080'000, 3, 8, 14.0625 * 64 / 66},
    {LinkSpeed::kEdr, "EDR", LineCode::k64b66b, 2'560'000, 1, 8, 25.0},
    {LinkSpeed::kHdr, "HDR", LineCode::kPam4RsFec, 1'280'000, 1, 8, 50.0},
    {LinkSpeed::kNdr, "NDR", LineCode::kPam4RsFec, 640'000, 1, 8, 100.0},
    // XDR: 200 Gb/s per lane (106.25 Gbaud PAM4, 212.5 Gb/s on the line, RS(544,514) as HDR/NDR).
    {LinkSpeed::kXdr, "XDR", LineCode::kPam4RsFec, 320'000, 1, 8, 200.0},
};
}  // namespace

const LinkSpeedInfo& link_speed_info(LinkSpeed s) { return kSpeeds[static_cast<int>(s)]; }

std::optional<LinkSpeed> parse_link_speed(std::string_view name) {
  std::string upper(name);
  std::transform(upper.begin(), upper.end(), upper.begin(), [](unsigned char c) { return std::toupper(c); });
  for (const auto& s : kSpeeds)
    if (upper == s.name) return s.speed;
  return std::nullopt;
}

std::optional<unsigned> parse_link_width(std::string_view text) {
  if (!text.empty() && (text.back() == 'x' || text.back() == 'X')) text.remove_suffix(1);
  if (text == "1") return 1u;
  if (text == "2") return 2u;
  if (text == "4") return 4u;
  if (text == "8") return 8u;
  if (text == "12") return 12u;
  return std::nullopt;
}

const char* line_code_name(LineCode c) {
  switch (c) {
    case LineCode::k8b10b: return "8b/10b";
    case LineCode::k64b66b: return "64b/66b";
    case LineCode::kPam4RsFec: return "PAM4 RS-FEC";
  }
  return "?";
}

std::string LinkRate::name() const { return fmt::format("{}x {}", lanes, info().name); }

}  // namespace ibfsim
