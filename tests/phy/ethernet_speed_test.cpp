// Ethernet speeds: byte clocks from the nominal data rates, lane rates from the encodings, FEC
// codes and the bytes a receiver waits for, all against figures computed by hand.
#include "sim/phy/ethernet_speed.h"

#include <catch2/catch.hpp>

#include <string>

using namespace ibfsim;

TEST_CASE("Ethernet byte clocks: 8 bits at the nominal data rate, whole femtoseconds", "[phy][ethernet]") {
  CHECK(EthernetRate{EthernetSpeed::k25G}.clock().time_of(1) == 320'000);   // 8 / 25 Gb/s
  CHECK(EthernetRate{EthernetSpeed::k50G}.clock().time_of(1) == 160'000);
  CHECK(EthernetRate{EthernetSpeed::k100G}.clock().time_of(1) == 80'000);
  CHECK(EthernetRate{EthernetSpeed::k200G}.clock().time_of(1) == 40'000);
  CHECK(EthernetRate{EthernetSpeed::k400G}.clock().time_of(1) == 20'000);
  // 1,000,000 bytes on 100GbE: 80 us exactly.
  CHECK(EthernetRate{EthernetSpeed::k100G}.clock().time_of(1'000'000) == 80 * kUs);
}

TEST_CASE("Ethernet lane rates: 64b/66b on NRZ lanes, 257/256 x 544/514 = 17/16 on PAM4 lanes",
          "[phy][ethernet]") {
  for (EthernetSpeed s : {EthernetSpeed::k25G, EthernetSpeed::k50G, EthernetSpeed::k100G, EthernetSpeed::k200G,
                          EthernetSpeed::k400G}) {
    const EthernetSpeedInfo& i = ethernet_speed_info(s);
    INFO(i.name);
    const bool pam4 = i.modulation == Modulation::kPam4;
    // Line bits per second over all lanes, in kb/s, back to the data rate by the code's overhead.
    const std::uint64_t line_kbps = i.lane_kbaud * (pam4 ? 2 : 1) * i.lanes;
    const std::uint64_t data_kbps = pam4 ? line_kbps * 16 / 17 : line_kbps * 64 / 66;
    CHECK(data_kbps == i.data_gbps * 1'000'000ull);
    CHECK(line_kbps * (pam4 ? 16 : 64) % (pam4 ? 17 : 66) == 0);  // exact
    CHECK(i.byte_period_fs * i.data_gbps == 8'000'000);          // 8 bits: fs x Gb/s = 8e6
    CHECK(i.fec == (pam4 ? FecCode::kRs544 : FecCode::kRs528));
    CHECK(i.fec_required == pam4);
  }
  CHECK(ethernet_speed_info(EthernetSpeed::k25G).lane_kbaud == 25'781'250);   // 25 x 66/64
  CHECK(ethernet_speed_info(EthernetSpeed::k100G).lanes == 4);
  CHECK(ethernet_speed_info(EthernetSpeed::k50G).lane_kbaud == 26'562'500);   // 50 x 17/16 / 2
  CHECK(ethernet_speed_info(EthernetSpeed::k400G).lanes == 8);
  CHECK(std::string(ethernet_speed_info(EthernetSpeed::k200G).phy) == "200GBASE-R");
}

TEST_CASE("Ethernet FEC: a codeword carries 640 bytes, 200/400GBASE-R interleave two", "[phy][ethernet][fec]") {
  // The FEC block in time equals the codeword's bits at the line rate (independent figures):
  //   25G  RS(528,514): 5,280 bits / 25.78125 Gb/s = 204.8 ns = 640 x 320 ps
  //   50G  RS(544,514): 5,440 bits / 53.125 Gb/s   = 102.4 ns = 640 x 160 ps
  //   100G RS(528,514): 5,280 bits / 103.125 Gb/s  =  51.2 ns = 640 x 80 ps
  //   200G 2 x RS(544,514): 10,880 bits / 212.5 Gb/s = 51.2 ns = 1,280 x 40 ps
  //   400G 2 x RS(544,514): 10,880 bits / 425 Gb/s   = 25.6 ns = 1,280 x 20 ps
  const auto block_time = [](EthernetSpeed s) {
    const EthernetRate r{s, true};
    return r.clock().time_of(r.fec_block_bytes());
  };
  CHECK(block_time(EthernetSpeed::k25G) == 204'800'000);
  CHECK(block_time(EthernetSpeed::k50G) == 102'400'000);
  CHECK(block_time(EthernetSpeed::k100G) == 51'200'000);
  CHECK(block_time(EthernetSpeed::k200G) == 51'200'000);
  CHECK(block_time(EthernetSpeed::k400G) == 25'600'000);
  CHECK(EthernetRate{EthernetSpeed::k100G, false}.fec_block_bytes() == 0);
  CHECK(EthernetRate{EthernetSpeed::k100G, false}.fec_code() == FecCode::kNone);

  // Data whose last byte ends at edge 1,086 is usable at the end of its codeword, edge 1,280,
  // plus the decoder: 100 ns at 80 ps = 1,250 edges.
  const FecTiming t = EthernetRate{EthernetSpeed::k100G, true}.fec_timing(100 * kNs);
  CHECK(t.code == FecCode::kRs528);
  CHECK(t.codeword_edges == 640);
  CHECK(t.decoder_edges == 1250);
  CHECK(t.available(1086) == 1280 + 1250);
  CHECK(t.available(1280) == 1280 + 1250);
  CHECK(t.available(1281) == 1920 + 1250);
  // A decoder latency between edges is rounded up to the next edge.
  CHECK(EthernetRate{EthernetSpeed::k100G, true}.fec_timing(100 * kNs + 1).decoder_edges == 1251);
  // Without FEC data is usable on its last edge.
  const FecTiming none = EthernetRate{EthernetSpeed::k100G, false}.fec_timing(100 * kNs);
  CHECK_FALSE(none.on());
  CHECK(none.available(1086) == 1086);
}

TEST_CASE("Ethernet speeds parse, and FEC can be off only on the NRZ speeds", "[phy][ethernet]") {
  CHECK(parse_ethernet_speed("100GbE") == EthernetSpeed::k100G);
  CHECK(parse_ethernet_speed("25gbe") == EthernetSpeed::k25G);
  CHECK(parse_ethernet_speed("400G") == EthernetSpeed::k400G);
  CHECK(parse_ethernet_speed("50g") == EthernetSpeed::k50G);
  CHECK_FALSE(parse_ethernet_speed("40GbE"));
  CHECK_FALSE(parse_ethernet_speed("EDR"));
  CHECK_FALSE(parse_ethernet_speed("100"));

  CHECK(ethernet_rate_for(EthernetSpeed::k100G, std::nullopt)->name() == "100GbE RS(528,514)");
  CHECK(ethernet_rate_for(EthernetSpeed::k100G, false)->name() == "100GbE no FEC");
  CHECK(ethernet_rate_for(EthernetSpeed::k25G, false)->fec_code() == FecCode::kNone);
  CHECK(ethernet_rate_for(EthernetSpeed::k400G, true)->name() == "400GbE RS(544,514)");
  std::string why;
  CHECK_FALSE(ethernet_rate_for(EthernetSpeed::k50G, false, &why));
  CHECK(why == "50GbE (50GBASE-R, PAM4) always runs RS(544,514): fec cannot be off");
  CHECK_FALSE(ethernet_rate_for(EthernetSpeed::k200G, false));
}
