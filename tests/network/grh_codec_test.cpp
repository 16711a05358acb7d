// GRH codec: byte layout, round trips of field extremes, masking.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>

#include "sim/network/grh.h"

using namespace ibfsim;

namespace {
std::array<std::uint8_t, 16> gid(std::uint8_t first) {
  std::array<std::uint8_t, 16> g{};
  for (std::size_t i = 0; i < g.size(); ++i) g[i] = static_cast<std::uint8_t>(first + i);
  return g;
}

void require_equal(const Grh& a, const Grh& b) {
  REQUIRE(a.ipver == b.ipver);
  REQUIRE(a.tclass == b.tclass);
  REQUIRE(a.flow_label == b.flow_label);
  REQUIRE(a.pay_len == b.pay_len);
  REQUIRE(a.nxt_hdr == b.nxt_hdr);
  REQUIRE(a.hop_lmt == b.hop_lmt);
  REQUIRE(a.sgid == b.sgid);
  REQUIRE(a.dgid == b.dgid);
}
}  // namespace

TEST_CASE("GRH fields land at their byte offsets", "[network][codec]") {
  Grh grh;
  grh.tclass = 0xAB;
  grh.flow_label = 0x12345;
  grh.pay_len = 0x0102;
  grh.hop_lmt = 0x40;
  grh.sgid = gid(0x10);
  grh.dgid = gid(0x80);
  std::array<std::uint8_t, kGrhBytes> out{};
  encode_grh(grh, out.data());
  REQUIRE(out[0] == 0x6A);
  REQUIRE(out[1] == 0xB1);
  REQUIRE(out[2] == 0x23);
  REQUIRE(out[3] == 0x45);
  REQUIRE(out[4] == 0x01);
  REQUIRE(out[5] == 0x02);
  REQUIRE(out[6] == 0x1B);
  REQUIRE(out[7] == 0x40);
  REQUIRE(out[8] == 0x10);
  REQUIRE(out[23] == 0x1F);
  REQUIRE(out[24] == 0x80);
  REQUIRE(out[39] == 0x8F);
}

TEST_CASE("GRH round-trips field extremes", "[network][codec]") {
  Grh zero;
  zero.ipver = 0;
  zero.nxt_hdr = 0;
  Grh max;
  max.ipver = 15;
  max.tclass = 0xFF;
  max.flow_label = 0xFFFFF;
  max.pay_len = 0xFFFF;
  max.nxt_hdr = 0xFF;
  max.hop_lmt = 0xFF;
  max.sgid.fill(0xFF);
  max.dgid.fill(0xFF);
  Grh typical;
  typical.flow_label = 1;
  typical.pay_len = 4 * 1055 - 48;
  typical.hop_lmt = 1;
  typical.sgid = gid(0xFE);
  typical.dgid = gid(0x01);
  for (const Grh& grh : {zero, max, typical}) {
    std::array<std::uint8_t, kGrhBytes> out{};
    encode_grh(grh, out.data());
    require_equal(decode_grh(out.data()), grh);
  }
}

TEST_CASE("GRH encoding masks IPVer to 4 and FlowLabel to 20 bits", "[network][codec]") {
  Grh grh;
  grh.ipver = 0x16;
  grh.tclass = 0;
  grh.flow_label = 0xFFFFFFFF;
  std::array<std::uint8_t, kGrhBytes> out{};
  encode_grh(grh, out.data());
  const Grh back = decode_grh(out.data());
  REQUIRE(back.ipver == 6);
  REQUIRE(back.tclass == 0);
  REQUIRE(back.flow_label == 0xFFFFF);
}
