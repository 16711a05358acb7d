// DETH, RETH, AETH and ImmDt codecs: byte layout and round trips of field extremes.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>

#include "sim/transport/aeth.h"
#include "sim/transport/deth.h"
#include "sim/transport/immdt.h"
#include "sim/transport/reth.h"

using namespace ibfsim;

TEST_CASE("DETH layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kDethBytes> out{};
  out.fill(0xAA);
  encode_deth({0x1234, 0x11}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 8>{0, 0, 0x12, 0x34, 0, 0, 0, 0x11});
  for (const Deth& d : {Deth{0, 0}, Deth{0xFFFFFFFF, 0xFFFFFF}, Deth{0x80010000, 1}}) {
    encode_deth(d, out.data());
    const Deth back = decode_deth(out.data());
    REQUIRE(back.q_key == d.q_key);
    REQUIRE(back.src_qp == d.src_qp);
  }
  encode_deth({0, 0xFFFFFFFF}, out.data());
  REQUIRE(out[4] == 0);  // reserved
  REQUIRE(decode_deth(out.data()).src_qp == 0xFFFFFF);
}

TEST_CASE("RETH layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kRethBytes> out{};
  encode_reth({0x0102030405060708, 0x090A0B0C, 0x0D0E0F10}, out.data());
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == i + 1);
  for (const Reth& r :
       {Reth{0, 0, 0}, Reth{~0ull, 0xFFFFFFFF, 0xFFFFFFFF}, Reth{1ull << 63, 1, 0x80000000}}) {
    encode_reth(r, out.data());
    const Reth back = decode_reth(out.data());
    REQUIRE(back.va == r.va);
    REQUIRE(back.r_key == r.r_key);
    REQUIRE(back.dma_len == r.dma_len);
  }
}

TEST_CASE("AETH layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kAethBytes> out{};
  encode_aeth({0x1F, 1}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 4>{0x1f, 0, 0, 0x01});
  for (const Aeth& a : {Aeth{0, 0}, Aeth{0xFF, 0xFFFFFF}, Aeth{0x60, 0x800000}}) {
    encode_aeth(a, out.data());
    const Aeth back = decode_aeth(out.data());
    REQUIRE(back.syndrome == a.syndrome);
    REQUIRE(back.msn == a.msn);
  }
  encode_aeth({0x20, 0x01ABCDEF}, out.data());
  REQUIRE(decode_aeth(out.data()).msn == 0xABCDEF);
}

TEST_CASE("ImmDt layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kImmdtBytes> out{};
  encode_immdt({0xCAFEBABE}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 4>{0xCA, 0xFE, 0xBA, 0xBE});
  for (std::uint32_t v : {0u, 1u, 0xFFFFFFFFu, 0x80000000u}) {
    encode_immdt({v}, out.data());
    REQUIRE(decode_immdt(out.data()).data == v);
  }
}
