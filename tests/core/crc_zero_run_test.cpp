// crc_zero_run must equal feeding zero bytes one bit at a time, for any register and length.
#include "sim/core/crc_zero_run.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

namespace {

// Independent bit-serial reference: n zero bytes into a reflected register.
template <typename Reg>
Reg serial_zeros(Reg reg, Reg poly, std::uint64_t n) {
  for (std::uint64_t i = 0; i < 8 * n; ++i)
    reg = static_cast<Reg>((reg >> 1) ^ ((reg & 1u) ? poly : 0u));
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

namespace {
struct Run {
  const std::uint8_t* data;
  std::size_t len;
};

// Bit-serial continuation over real bytes.
std::uint32_t serial_bytes(std::uint32_t reg, const std::uint8_t* data, std::size_t len) {
  for (std::size_t i = 0; i < len; ++i) {
    reg ^= data[i];
    for (int b = 0; b < 8; ++b) reg = (reg >> 1) ^ ((reg & 1u) ? 0xEDB88320u : 0u);
  }
  return reg;
}
}  // namespace

TEST_CASE("crc_continue_runs equals the bit-serial CRC over the concatenated runs", "[core][crc]") {
  std::vector<std::uint8_t> a(37), b(5);
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<std::uint8_t>(i * 13 + 1);
  for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<std::uint8_t>(0xF0 - i);
  const auto from_zero = [](const std::uint8_t* d, std::size_t n) { return serial_bytes(0, d, n); };
  for (std::uint64_t zeros : {0u, 1u, 3u, 64u, 2051u}) {
    const std::vector<std::uint8_t> z(zeros, 0);
    const std::uint32_t init = 0xFFFFFFFF;
    const Run runs[] = {{nullptr, zeros}, {a.data(), a.size()}, {nullptr, 2},
                        {nullptr, zeros}, {b.data(), b.size()}, {b.data(), 0},
                        {nullptr, zeros}};
    std::uint32_t expected = init;
    for (const Run& r : runs)
      expected = r.data ? serial_bytes(expected, r.data, r.len)
                        : serial_zeros<std::uint32_t>(expected, 0xEDB88320u, r.len);
    INFO("zero runs of " << zeros << " bytes");
    REQUIRE(ibfsim::crc_continue_runs<std::uint32_t, 0xEDB88320u>(
                init, std::begin(runs), std::end(runs), from_zero) == expected);
  }
}
