// LRH codec: byte layout against the reference packets (docs/compliance.md), round trips, masking,
// hot-path helpers.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>

#include "sim/link/lrh.h"

using namespace ibfsim;

namespace {
void require_equal(const Lrh& a, const Lrh& b) {
  REQUIRE(a.vl == b.vl);
  REQUIRE(a.lver == b.lver);
  REQUIRE(a.sl == b.sl);
  REQUIRE(a.lnh == b.lnh);
  REQUIRE(a.dlid == b.dlid);
  REQUIRE(a.pkt_len == b.pkt_len);
  REQUIRE(a.slid == b.slid);
}
}  // namespace

TEST_CASE("LRH encodes the reference UD and ACK headers byte for byte", "[network][codec]") {
  std::array<std::uint8_t, kLrhBytes> out{};
  encode_lrh({0, 0, 0, kLnhIbaLocal, 2, 12, 1}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 8>{0x00, 0x02, 0x00, 0x02, 0x00, 0x0c, 0x00, 0x01});
  encode_lrh({1, 0, 1, kLnhIbaLocal, 1, 7, 3}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 8>{0x10, 0x12, 0x00, 0x01, 0x00, 0x07, 0x00, 0x03});
}

TEST_CASE("LRH round-trips field extremes", "[network][codec]") {
  for (const Lrh& lrh :
       {Lrh{0, 0, 0, kLnhRaw, 0, 0, 0}, Lrh{15, 15, 15, kLnhIbaGlobal, 0xFFFF, 0x7FF, 0xFFFF},
        Lrh{15, 0, 0, kLnhRawIpv6, 0xC000, 1055, 0xBFFF},
        Lrh{0, 1, 15, kLnhIbaLocal, 1, 6, 0xFFFF}}) {
    std::array<std::uint8_t, kLrhBytes> out{};
    encode_lrh(lrh, out.data());
    require_equal(decode_lrh(out.data()), lrh);
  }
}

TEST_CASE("LRH encoding writes reserved bits as 0 and masks oversized fields", "[network][codec]") {
  std::array<std::uint8_t, kLrhBytes> out{};
  out.fill(0xAA);
  encode_lrh({0xFF, 0xFF, 0xFF, 0xFF, 0xFFFF, 0xFFFF, 0xFFFF}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 8>{0xFF, 0xF3, 0xFF, 0xFF, 0x07, 0xFF, 0xFF, 0xFF});
  // Decoding ignores reserved bits.
  const std::array<std::uint8_t, 8> noisy = {0x00, 0x0E, 0x00, 0x01, 0xF8, 0x06, 0x00, 0x02};
  const Lrh lrh = decode_lrh(noisy.data());
  REQUIRE(lrh.lnh == kLnhIbaLocal);
  REQUIRE(lrh.pkt_len == 6);
}

TEST_CASE("LRH single-field helpers read DLID and VL and rewrite only VL", "[network][codec]") {
  std::array<std::uint8_t, kLrhBytes> h{};
  encode_lrh({3, 5, 9, kLnhIbaGlobal, 0xBEEF, 0x123, 0x4242}, h.data());
  REQUIRE(lrh_dlid(h.data()) == 0xBEEF);
  REQUIRE(lrh_vl(h.data()) == 3);
  REQUIRE(lrh_sl(h.data()) == 9);
  REQUIRE(lrh_lnh(h.data()) == kLnhIbaGlobal);
  set_lrh_vl(h.data(), 14);
  const Lrh after = decode_lrh(h.data());
  require_equal(after, {14, 5, 9, kLnhIbaGlobal, 0xBEEF, 0x123, 0x4242});
  set_lrh_vl(h.data(), 0);
  REQUIRE(lrh_vl(h.data()) == 0);
  REQUIRE(decode_lrh(h.data()).lver == 5);
}

TEST_CASE("LRH single-field helpers read SLID and LVer", "[network][codec]") {
  std::array<std::uint8_t, kLrhBytes> h{};
  encode_lrh({3, 5, 9, kLnhIbaGlobal, 0xBEEF, 0x123, 0x4242}, h.data());
  REQUIRE(lrh_slid(h.data()) == 0x4242);
  REQUIRE(lrh_lver(h.data()) == 5);
  // The reference UD header: SLID 1, LVer 0.
  encode_lrh({0, 0, 0, kLnhIbaLocal, 2, 12, 1}, h.data());
  REQUIRE(lrh_slid(h.data()) == 1);
  REQUIRE(lrh_lver(h.data()) == 0);
  encode_lrh({15, 15, 0, kLnhRaw, 0, 0, kLidPermissive}, h.data());
  REQUIRE(lrh_slid(h.data()) == kLidPermissive);
  REQUIRE(lrh_lver(h.data()) == 15);
  REQUIRE(lrh_vl(h.data()) == 15);
}
