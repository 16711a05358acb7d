#include <catch2/catch.hpp>

#include "sim/phy/fec.h"
#include "sim/phy/link_speed.h"

using namespace ibfsim;

TEST_CASE("each speed's FEC: required at HDR and above, optional at FDR and EDR, none below", "[phy][fec]") {
  CHECK(fec_code_of(LinkSpeed::kQdr) == FecCode::kNone);
  CHECK(fec_code_of(LinkSpeed::kFdr10) == FecCode::kNone);
  CHECK(fec_code_of(LinkSpeed::kFdr) == FecCode::kFirecode);
  CHECK(fec_code_of(LinkSpeed::kEdr) == FecCode::kRs528);
  CHECK(fec_code_of(LinkSpeed::kHdr) == FecCode::kRs544);
  CHECK(fec_code_of(LinkSpeed::kNdr) == FecCode::kRs544);
  CHECK(fec_code_of(LinkSpeed::kXdr) == FecCode::kRs544);
  CHECK_FALSE(fec_required(LinkSpeed::kEdr));
  CHECK(fec_required(LinkSpeed::kHdr));
  // Unset: the speed's default; on: its code where it has one; off: none where optional.
  CHECK(fec_code_for(LinkSpeed::kEdr, std::nullopt) == FecCode::kNone);
  CHECK(fec_code_for(LinkSpeed::kEdr, true) == FecCode::kRs528);
  CHECK(fec_code_for(LinkSpeed::kFdr, true) == FecCode::kFirecode);
  CHECK(fec_code_for(LinkSpeed::kQdr, true) == FecCode::kNone);
  CHECK(fec_code_for(LinkSpeed::kNdr, std::nullopt) == FecCode::kRs544);
  CHECK(fec_code_name(FecCode::kRs544) == std::string("RS(544,514)"));
  CHECK(fec_code_name(FecCode::kRs528) == std::string("RS(528,514)"));
  CHECK(parse_fec_setting("On") == true);
  CHECK(parse_fec_setting("off") == false);
  CHECK_FALSE(parse_fec_setting("rs528").has_value());
}

TEST_CASE("a codeword carries 80 64b/66b blocks per lane (RS) or 32 (Firecode), costing no rate at FDR and EDR",
          "[phy][fec]") {
  // RS: 514 10-bit symbols of message = 5,140 bits = 20 transcoded 257-bit blocks = 80 x 64 data bits.
  CHECK(fec_codeword_edges(FecCode::kRs544) == 80);
  CHECK(fec_codeword_edges(FecCode::kRs528) == 80);
  CHECK(514 * 10 == 20 * 257);
  // Firecode: 2,112 bits = 32 x 65 transcoded bits + 32 parity.
  CHECK(fec_codeword_edges(FecCode::kFirecode) == 32);
  CHECK(32 * 65 + 32 == 2112);
  CHECK(fec_codeword_edges(FecCode::kNone) == 0);
  // Line bits per 64 data bits: 64b/66b costs 66; RS(528,514) with 256b/257b costs 528/514 x 257/256
  // x 64 = 66 exactly (EDR's period is unchanged); RS(544,514) costs 68 (HDR's 1.28 ns per 64 bits
  // at 53.125 Gb/s).
  CHECK(528 * 257 * 64 == 66 * 514 * 256);
  CHECK(2112 * 65 * 64 == 66 * 2080 * 64);
  CHECK(544 * 257 * 64 == 68 * 514 * 256);
  // 53,125 blocks of 68 line bits at 53.125 Gb/s: 68 us.
  CHECK(LinkRate{LinkSpeed::kHdr, 1}.clock().time_of(53'125) == 68'000'000'000);
}

TEST_CASE("data is available at the end of the codeword holding its last edge, plus the decoder", "[phy][fec]") {
  const FecTiming none;
  CHECK_FALSE(none.on());
  CHECK(none.available(123) == 123);
  const FecTiming rs(FecCode::kRs544, 7);
  CHECK(rs.on());
  // Codewords end at 80, 160, ... edges after link up.
  CHECK(rs.available(1) == 87);
  CHECK(rs.available(80) == 87);   // the last edge of the first codeword
  CHECK(rs.available(81) == 167);  // one edge into the next: it waits for all of it
  CHECK(rs.available(160) == 167);
  const FecTiming fc(FecCode::kFirecode, 0);
  CHECK(fc.available(33) == 64);
  // No FEC, no decoder.
  CHECK(FecTiming(FecCode::kNone, 50).available(10) == 10);
}
