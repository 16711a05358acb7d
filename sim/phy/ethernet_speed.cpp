#include "sim/phy/ethernet_speed.h"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <string>

namespace ibfsim {

namespace {
// Byte periods: 8 bits at the data rate (25 Gb/s: 320 ps). Lane rates: NRZ 25 Gb/s x 66/64 =
// 25.78125 GBd; PAM4 50 Gb/s x 17/16 = 53.125 Gb/s at 2 bits per symbol = 26.5625 GBd.
const EthernetSpeedInfo kSpeeds[] = {
    {EthernetSpeed::k25G, "25GbE", "25GBASE-R", 1, Modulation::kNrz, 25'781'250, 320'000, 25, FecCode::kRs528, false, 1},
    {EthernetSpeed::k50G, "50GbE", "50GBASE-R", 1, Modulation::kPam4, 26'562'500, 160'000, 50, FecCode::kRs544, true, 1},
    {EthernetSpeed::k100G, "100GbE", "100GBASE-R", 4, Modulation::kNrz, 25'781'250, 80'000, 100, FecCode::kRs528, false, 1},
    {EthernetSpeed::k200G, "200GbE", "200GBASE-R", 4, Modulation::kPam4, 26'562'500, 40'000, 200, FecCode::kRs544, true, 2},
    {EthernetSpeed::k400G, "400GbE", "400GBASE-R", 8, Modulation::kPam4, 26'562'500, 20'000, 400, FecCode::kRs544, true, 2},
};

std::string lower(std::string_view text) {
  std::string s(text);
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return std::tolower(c); });
  return s;
}
}  // namespace

const EthernetSpeedInfo& ethernet_speed_info(EthernetSpeed s) { return kSpeeds[static_cast<int>(s)]; }

std::optional<EthernetSpeed> parse_ethernet_speed(std::string_view text) {
  const std::string t = lower(text);
  for (const auto& s : kSpeeds) {
    const std::string name = lower(s.name);                         // "100gbe"
    const std::string short_name = name.substr(0, name.size() - 2);  // "100g"
    if (t == name || t == short_name) return s.speed;
  }
  return std::nullopt;
}

FecTiming EthernetRate::fec_timing(Time decoder_latency) const {
  FecTiming t;
  t.code = fec_code();
  t.codeword_edges = fec_block_bytes();
  t.decoder_edges = t.codeword_edges == 0 ? 0 : clock().cycle_at_or_after(decoder_latency);
  return t;
}

std::string EthernetRate::name() const {
  return fmt::format("{} {}", info().name, fec ? fec_code_name(info().fec) : "no FEC");
}

std::optional<EthernetRate> ethernet_rate_for(EthernetSpeed speed, std::optional<bool> requested,
                                              std::string* error) {
  const EthernetSpeedInfo& info = ethernet_speed_info(speed);
  if (requested == false && info.fec_required) {
    if (error) *error = fmt::format("{} ({}, PAM4) always runs {}: fec cannot be off", info.name, info.phy,
                                    fec_code_name(info.fec));
    return std::nullopt;
  }
  return EthernetRate{speed, requested.value_or(true)};
}

}  // namespace ibfsim
