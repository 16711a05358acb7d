// Ethernet speeds (IEEE 802.3) and the clock an Ethernet link runs on.
//
//   speed   PHY (clause)                       lanes x line rate            FEC
//   25GbE   25GBASE-R (107, FEC 108)           1 x 25.78125 GBd NRZ         RS(528,514) on (SR),
//                                                                           optional (CR-S, LR)
//   50GbE   50GBASE-R (133, FEC 134)           1 x 26.5625 GBd PAM4         RS(544,514) always
//   100GbE  100GBASE-R (82, FEC 91)            4 x 25.78125 GBd NRZ         RS(528,514) on (CR4,
//                                                                           SR4, KR4), off (LR4)
//   200GbE  200GBASE-R (119)                   4 x 26.5625 GBd PAM4         RS(544,514) always
//   400GbE  400GBASE-R (119)                   8 x 26.5625 GBd PAM4         RS(544,514) always
//
// Encodings: 64b/66b everywhere (line = data x 66/64). With FEC the 66-bit blocks are transcoded
// four at a time to 257 bits and protected by the Reed-Solomon code: RS(528,514) costs
// 257/256 x 528/514 = 66/64, exactly the line rate 64b/66b already had (the NRZ speeds keep their
// 25.78125 GBd with FEC on or off); RS(544,514) costs 257/256 x 544/514 = 17/16, so a 50 Gb/s PAM4
// lane runs at 53.125 Gb/s (26.5625 GBd). Either way the MAC sees exactly the nominal data rate,
// so a link's clock is one byte of the MAC's stream (preamble, frame, inter-frame gap) per edge:
// 320, 160, 80, 40 and 20 ps, whole femtoseconds. (Alignment markers take the place of idles and
// deficit idle count keeps the gap at 12 bytes on average: neither changes the byte clock.)
//
// FEC latency: a receiver can correct, hence use, no data of a codeword before all of it has
// arrived. A codeword carries 20 transcoded blocks = 80 66-bit blocks = 640 bytes of the MAC's
// stream (25G, 50G, 100G: one codeword, spread over the lanes by 10-bit symbols); 200GBASE-R and
// 400GBASE-R interleave two codewords symbol by symbol, so data waits for 1,280 bytes. Codewords
// follow each other from the link's first edge. Then the decoder takes its own time (a setting).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "sim/core/symbol_clock.h"
#include "sim/core/time.h"
#include "sim/phy/fec.h"

namespace ibfsim {

enum class EthernetSpeed : std::uint8_t { k25G, k50G, k100G, k200G, k400G };
enum class Modulation : std::uint8_t { kNrz, kPam4 };

struct EthernetSpeedInfo {
  EthernetSpeed speed;
  const char* name;        // "100GbE"
  const char* phy;         // "100GBASE-R"
  unsigned lanes;
  Modulation modulation;
  std::uint64_t lane_kbaud;       // line symbol rate of one lane, kBd: 25,781,250 or 26,562,500
  std::uint64_t byte_period_fs;   // one byte at the MAC's data rate
  unsigned data_gbps;             // nominal: 25 .. 400
  FecCode fec;                    // the code the PHY uses when FEC runs
  bool fec_required;              // PAM4 speeds cannot run without it
  unsigned fec_interleave;        // codewords interleaved: the FEC block is 640 x this bytes
};

const EthernetSpeedInfo& ethernet_speed_info(EthernetSpeed s);
// "25GbE", "100gbe", "100G" (any case); nullopt otherwise.
std::optional<EthernetSpeed> parse_ethernet_speed(std::string_view text);

// Bytes of the MAC's stream one codeword carries: 80 blocks of 8 bytes.
constexpr std::uint64_t kEthernetFecCodewordBytes = 640;

// A configured Ethernet link: its speed and whether it runs FEC.
struct EthernetRate {
  EthernetSpeed speed = EthernetSpeed::k100G;
  bool fec = true;  // must be true where the speed requires FEC (ethernet_rate_for checks)

  const EthernetSpeedInfo& info() const { return ethernet_speed_info(speed); }
  // One byte of the MAC's stream per edge.
  SymbolClock clock() const { return SymbolClock(info().byte_period_fs, 1); }
  FecCode fec_code() const { return fec ? info().fec : FecCode::kNone; }
  // Bytes a receiver waits for before it can use data: 640 or 1,280 with FEC, 0 without.
  std::uint64_t fec_block_bytes() const { return fec ? kEthernetFecCodewordBytes * info().fec_interleave : 0; }
  // When data is available, in edges of clock(): FEC blocks from edge 0, then the decoder's
  // latency rounded up to whole edges.
  FecTiming fec_timing(Time decoder_latency) const;
  std::string name() const;  // "100GbE RS(528,514)", "100GbE no FEC"
};

// The rate of a link at `speed` with FEC `requested` on or off (nullopt: the speed's default, on
// everywhere). Off where the speed requires FEC is an error: nullopt, and `error` says why.
std::optional<EthernetRate> ethernet_rate_for(EthernetSpeed speed, std::optional<bool> requested,
                                              std::string* error = nullptr);

}  // namespace ibfsim
