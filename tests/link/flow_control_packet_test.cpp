// The 6-byte flow-control packet: the reference packet (docs/compliance.md), round trips, masking,
// and rule R6 (bad LPCRC or reserved Op -> discard).
#include "sim/link/flow_control_packet.h"

#include <array>
#include <catch2/catch.hpp>
#include <cstdint>

using namespace ibfsim;

TEST_CASE("FC packet Op 0 FCTBS 100 VL 0 FCCL 200 encodes to 006400c8 + LPCRC 0x9C5F",
          "[link][codec]") {
  const auto bytes = encode_flow_control({0, 100, 0, 200});
  const std::array<std::uint8_t, 6> expected = {0x00, 0x64, 0x00, 0xc8, 0x5f, 0x9c};
  REQUIRE(bytes == expected);
  const auto fc = decode_flow_control(expected.data());
  REQUIRE(fc);
  REQUIRE(fc->op == 0);
  REQUIRE(fc->fctbs == 100);
  REQUIRE(fc->vl == 0);
  REQUIRE(fc->fccl == 200);
}

TEST_CASE("FC packets round-trip field extremes", "[link][codec]") {
  for (std::uint8_t op : {0, 1})
    for (std::uint16_t fctbs : {0, 1, 2048, 4095})
      for (std::uint8_t vl : {0, 7, 14, 15})
        for (std::uint16_t fccl : {0, 1, 2048, 4095}) {
          const auto bytes = encode_flow_control({op, fctbs, vl, fccl});
          const auto fc = decode_flow_control(bytes.data());
          REQUIRE(fc);
          REQUIRE(fc->op == op);
          REQUIRE(fc->fctbs == fctbs);
          REQUIRE(fc->vl == vl);
          REQUIRE(fc->fccl == fccl);
        }
}

TEST_CASE("FC encoding keeps FCTBS and FCCL modulo 4096", "[link][codec]") {
  const auto wrapped = encode_flow_control({0, 4096 + 5, 3, 0xFFFF});
  const auto fc = decode_flow_control(wrapped.data());
  REQUIRE(fc);
  REQUIRE(fc->fctbs == 5);
  REQUIRE(fc->fccl == 4095);
  REQUIRE(fc->vl == 3);
  REQUIRE(wrapped == encode_flow_control({0, 5, 3, 4095}));
}

TEST_CASE("decode_flow_control rejects any single-bit error (bad LPCRC)", "[link][codec]") {
  const auto good = encode_flow_control({1, 0x123, 5, 0xABC});
  REQUIRE(decode_flow_control(good.data()));
  for (std::size_t byte = 0; byte < good.size(); ++byte)
    for (int bit = 0; bit < 8; ++bit) {
      auto bad = good;
      bad[byte] ^= static_cast<std::uint8_t>(1u << bit);
      INFO("byte " << byte << " bit " << bit);
      REQUIRE_FALSE(decode_flow_control(bad.data()));
    }
}

TEST_CASE("decode_flow_control rejects reserved Op values even with a good LPCRC",
          "[link][codec]") {
  for (std::uint8_t op : {2, 3, 15}) {
    const auto bytes = encode_flow_control({op, 100, 0, 200});  // LPCRC is valid for these bytes
    REQUIRE((bytes[0] >> 4) == op);
    REQUIRE_FALSE(decode_flow_control(bytes.data()));
  }
}
