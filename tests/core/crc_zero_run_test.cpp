// crc_zero_run must equal feeding zero bytes one bit at a time, for any register and length.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "sim/core/crc_zero_run.h"

namespace {

// Independent bit-serial reference: n zero bytes into a reflected register.
template <typename Reg>
Reg serial_zeros(Reg reg, Reg poly, std::uint64_t n) {
  for (std::uint64_t i = 0; i < 8 * n; ++i) reg = static_cast<Reg>((reg >> 1) ^ ((reg & 1u) ? poly : 0u));
  return reg;
}

std::vector<std::uint64_t> lengths() {
  std::vector<std::uint64_t> n;
  for (std::uint64_t i = 0; i <= 300; ++i) n.push_back(i);
  for (std::uint64_t i : {1023u, 1024u, 2047u, 2048u, 4096u, 4099u, 65537u}) n.push_back(i);
  return n;
}

}  // namespace

TEST_CASE("crc_zero_run advances a CRC-32 register like bit-serial zero bytes", "[core][crc]") {
  for (std::uint32_t reg : {0u, 1u, 0xFFFFFFFFu, 0x80000000u, 0x12345678u})
    for (std::uint64_t n : lengths())
      REQUIRE(ibfsim::crc_zero_run<std::uint32_t, 0xEDB88320u>(reg, n) ==
              serial_zeros<std::uint32_t>(reg, 0xEDB88320u, n));
}

TEST_CASE("crc_zero_run advances a CRC-16 register like bit-serial zero bytes", "[core][crc]") {
  for (std::uint16_t reg : {0, 1, 0xFFFF, 0x8000, 0x1234})
    for (std::uint64_t n : lengths())
      REQUIRE(ibfsim::crc_zero_run<std::uint16_t, 0xD008>(reg, n) ==
              serial_zeros<std::uint16_t>(reg, 0xD008, n));
}

TEST_CASE("reflect_bits reverses 16- and 32-bit values", "[core][crc]") {
  STATIC_REQUIRE(ibfsim::reflect_bits<std::uint32_t>(0x04C11DB7u) == 0xEDB88320u);
  STATIC_REQUIRE(ibfsim::reflect_bits<std::uint16_t>(0x100B) == 0xD008);
  STATIC_REQUIRE(ibfsim::reflect_bits<std::uint16_t>(0x0001) == 0x8000);
  STATIC_REQUIRE(ibfsim::reflect_bits<std::uint32_t>(0x00000001u) == 0x80000000u);
}
