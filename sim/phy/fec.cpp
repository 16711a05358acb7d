#include "sim/phy/fec.h"

#include <algorithm>
#include <cctype>
#include <string>

namespace ibfsim {

const char* fec_code_name(FecCode c) {
  switch (c) {
    case FecCode::kNone: return "none";
    case FecCode::kFirecode: return "FC(2112,2080)";
    case FecCode::kRs528: return "RS(528,514)";
    case FecCode::kRs544: return "RS(544,514)";
  }
  return "?";
}

FecCode fec_code_of(LinkSpeed speed) {
  switch (speed) {
    case LinkSpeed::kFdr: return FecCode::kFirecode;
    case LinkSpeed::kEdr: return FecCode::kRs528;
    case LinkSpeed::kHdr:
    case LinkSpeed::kNdr:
    case LinkSpeed::kXdr: return FecCode::kRs544;
    default: return FecCode::kNone;
  }
}

bool fec_required(LinkSpeed speed) { return fec_code_of(speed) == FecCode::kRs544; }

FecCode fec_code_for(LinkSpeed speed, std::optional<bool> requested) {
  if (fec_required(speed) || requested.value_or(false)) return fec_code_of(speed);
  return FecCode::kNone;
}

std::uint64_t fec_codeword_edges(FecCode c) {
  switch (c) {
    case FecCode::kNone: return 0;
    case FecCode::kFirecode: return 32;  // 32 x 65 transcoded bits + 32 parity = 2112
    case FecCode::kRs528:
    case FecCode::kRs544: return 80;  // 514 x 10 bits = 20 x 257 = 80 x 64 data bits
  }
  return 0;
}

std::optional<bool> parse_fec_setting(std::string_view text) {
  std::string lower(text);
  std::transform(lower.begin(), lower.end(), lower.begin(), [](unsigned char c) { return std::tolower(c); });
  if (lower == "on") return true;
  if (lower == "off") return false;
  return std::nullopt;
}

}  // namespace ibfsim
