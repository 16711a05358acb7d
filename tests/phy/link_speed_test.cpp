#include <catch2/catch.hpp>

#include "sim/phy/link_speed.h"
#include "sim/phy/serialization.h"

using namespace ibfsim;

namespace {
// Data rate in bit/s from the symbol clock: bytes per edge * 8 / period.
double gbps(LinkSpeed s, unsigned lanes) {
  LinkRate r{s, lanes};
  return r.bytes_per_symbol() * 8.0 / r.clock().period_fs() * 1e6;
}
}  // namespace

TEST_CASE("every speed and width runs at its nominal data rate (IBA Vol 2, FDR10 Mellanox's)", "[phy][speed]") {
  CHECK(gbps(LinkSpeed::kSdr, 1) == Approx(2.0));
  CHECK(gbps(LinkSpeed::kDdr, 4) == Approx(16.0));
  CHECK(gbps(LinkSpeed::kQdr, 4) == Approx(32.0));
  CHECK(gbps(LinkSpeed::kQdr, 12) == Approx(96.0));
  CHECK(gbps(LinkSpeed::kFdr10, 4) == Approx(40.0));
  CHECK(gbps(LinkSpeed::kFdr, 4) == Approx(54.545454));
  CHECK(gbps(LinkSpeed::kFdr, 12) == Approx(163.636363));
  CHECK(gbps(LinkSpeed::kEdr, 4) == Approx(100.0));
  CHECK(gbps(LinkSpeed::kEdr, 2) == Approx(50.0));
  CHECK(gbps(LinkSpeed::kHdr, 4) == Approx(200.0));
  CHECK(gbps(LinkSpeed::kHdr, 8) == Approx(400.0));
  CHECK(gbps(LinkSpeed::kNdr, 4) == Approx(400.0));
  CHECK(gbps(LinkSpeed::kNdr, 12) == Approx(1200.0));
}

TEST_CASE("symbol periods are exact: 8b/10b symbols, 66-bit blocks, PAM4 post-FEC blocks", "[phy][speed]") {
  CHECK(LinkRate{LinkSpeed::kSdr, 1}.clock().time_of(1) == 4'000'000);   // 10 bits at 2.5 Gbaud
  CHECK(LinkRate{LinkSpeed::kQdr, 1}.clock().time_of(1) == 1'000'000);
  CHECK(LinkRate{LinkSpeed::kFdr10, 1}.clock().time_of(1) == 6'400'000);  // 66 bits at 10.3125 Gbaud
  CHECK(LinkRate{LinkSpeed::kFdr, 1}.clock().time_of(3) == 14'080'000);   // 3 blocks at 14.0625 Gbaud
  CHECK(LinkRate{LinkSpeed::kEdr, 1}.clock().time_of(1) == 2'560'000);    // 66 bits at 25.78125 Gbaud
  // HDR: 64 data bits cost 64 * 257/256 * 544/514 = 68 line bits at 53.125 Gb/s = 1.28 ns.
  CHECK(LinkRate{LinkSpeed::kHdr, 1}.clock().time_of(1) == 1'280'000);
  CHECK(LinkRate{LinkSpeed::kNdr, 1}.clock().time_of(1) == 640'000);
  // XDR: 200 Gb/s per lane (106.25 Gbaud PAM4, 212.5 Gb/s = 200 x 17/16 on the line): 0.32 ns.
  CHECK(LinkRate{LinkSpeed::kXdr, 1}.clock().time_of(1) == 320'000);
  CHECK(LinkRate{LinkSpeed::kXdr, 4}.data_gbps() == 800.0);
  CHECK(LinkRate{LinkSpeed::kXdr, 4}.info().line_code == LineCode::kPam4RsFec);
}

TEST_CASE("packets occupy ceil((bytes + 2 delimiters) / bytes per edge) edges", "[phy][serialization]") {
  // 8b/10b 4x: a data packet of 4n+2 bytes is n+1 edges; a 6-byte link packet is 2 edges.
  CHECK(symbols_for_packet({LinkSpeed::kQdr, 4}, 4 * 10 + 2) == 11);
  CHECK(symbols_for_packet({LinkSpeed::kQdr, 4}, 6) == 2);
  CHECK(symbols_for_packet({LinkSpeed::kQdr, 1}, 6) == 8);
  CHECK(symbols_for_packet({LinkSpeed::kQdr, 12}, 294) == 25);  // 296 slots, PAD to 300
  // 64b/66b 4x: 32 bytes per block time.
  CHECK(symbols_for_packet({LinkSpeed::kEdr, 4}, 2082) == 66);
  CHECK(symbols_for_packet({LinkSpeed::kEdr, 4}, 30) == 1);
  CHECK(symbols_for_packet({LinkSpeed::kEdr, 1}, 2082) == 261);
  CHECK(symbols_until_bytes({LinkSpeed::kQdr, 4}, 8) == 3);  // SDP + LRH
  CHECK(symbols_until_bytes({LinkSpeed::kQdr, 1}, 8) == 9);
  CHECK(symbols_until_bytes({LinkSpeed::kEdr, 4}, 8) == 1);
}

TEST_CASE("speed and width names parse", "[phy][speed]") {
  CHECK(parse_link_speed("edr") == LinkSpeed::kEdr);
  CHECK(parse_link_speed("FDR10") == LinkSpeed::kFdr10);
  CHECK(parse_link_speed("xdr") == LinkSpeed::kXdr);
  CHECK_FALSE(parse_link_speed("GDR").has_value());
  CHECK(parse_link_width("12x") == 12u);
  CHECK(parse_link_width("2X") == 2u);
  CHECK_FALSE(parse_link_width("3x").has_value());
  CHECK(LinkRate{LinkSpeed::kHdr, 8}.name() == "8x HDR");
}
