// SHARP's reductions (sharp_reduction.h): float16 conversions bit by bit (exact widening, rounding
// to nearest even with the cases written out by hand), and sum, min and max over int32, float32
// and float16 vectors with known inputs.
#include <catch2/catch.hpp>

#include <cmath>
#include <cstring>
#include <limits>
#include <vector>

#include "sim/transport/sharp/sharp_reduction.h"

using namespace ibfsim;

namespace {

template <typename T>
std::vector<std::uint8_t> bytes_of(const std::vector<T>& v) {
  std::vector<std::uint8_t> out(v.size() * sizeof(T));
  for (std::size_t i = 0; i < v.size(); ++i) {
    std::uint32_t w = 0;
    std::memcpy(&w, &v[i], sizeof(T));
    for (std::size_t b = 0; b < sizeof(T); ++b) out[i * sizeof(T) + b] = static_cast<std::uint8_t>(w >> (8 * b));
  }
  return out;
}

template <typename T>
std::vector<T> values_of(const std::vector<std::uint8_t>& bytes) {
  std::vector<T> out(bytes.size() / sizeof(T));
  for (std::size_t i = 0; i < out.size(); ++i) {
    std::uint32_t w = 0;
    for (std::size_t b = 0; b < sizeof(T); ++b) w |= std::uint32_t{bytes[i * sizeof(T) + b]} << (8 * b);
    std::memcpy(&out[i], &w, sizeof(T));
  }
  return out;
}

}  // namespace

TEST_CASE("float16 widens exactly: normals, subnormals, zeros, infinities, NaN", "[transport][sharp]") {
  CHECK(half_to_float(0x3C00) == 1.0f);
  CHECK(half_to_float(0xC000) == -2.0f);
  CHECK(half_to_float(0x7BFF) == 65504.0f);              // largest half
  CHECK(half_to_float(0x0400) == std::ldexp(1.0f, -14));  // smallest normal
  CHECK(half_to_float(0x0001) == std::ldexp(1.0f, -24));  // smallest subnormal
  CHECK(half_to_float(0x03FF) == std::ldexp(1023.0f, -24));
  CHECK(half_to_float(0x3555) == 0.333251953125f);
  CHECK(std::signbit(half_to_float(0x8000)));
  CHECK(half_to_float(0x7C00) == std::numeric_limits<float>::infinity());
  CHECK(std::isnan(half_to_float(0x7E00)));
  // Every finite half goes there and back unchanged.
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    if ((h & 0x7C00) == 0x7C00 && (h & 0x3FF) != 0) continue;  // NaNs
    REQUIRE(float_to_half(half_to_float(static_cast<std::uint16_t>(h))) == h);
  }
}

TEST_CASE("float16 rounds to nearest, ties to even", "[transport][sharp]") {
  // Around 1: halves are 2^-10 apart. 1 + 2^-11 is a tie between 0x3C00 (even) and 0x3C01.
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11)) == 0x3C00);
  // 1 + 3 x 2^-11: tie between 0x3C01 and 0x3C02 (even).
  CHECK(float_to_half(1.0f + 3 * std::ldexp(1.0f, -11)) == 0x3C02);
  // Just above a tie goes up.
  CHECK(float_to_half(1.0f + std::ldexp(1.0f, -11) + std::ldexp(1.0f, -20)) == 0x3C01);
  // 65519 rounds down to 65504; 65520 is the tie with 65536 (even): infinity.
  CHECK(float_to_half(65519.0f) == 0x7BFF);
  CHECK(float_to_half(65520.0f) == 0x7C00);
  CHECK(float_to_half(-1e10f) == 0xFC00);
  // Subnormals: 2^-25 is the tie between 0 (even) and 0x0001; 3 x 2^-25 between 0x0001 and 0x0002.
  CHECK(float_to_half(std::ldexp(1.0f, -25)) == 0x0000);
  CHECK(float_to_half(3 * std::ldexp(1.0f, -25)) == 0x0002);
  CHECK(float_to_half(-std::ldexp(1.0f, -26)) == 0x8000);
  // Rounding up out of the subnormals into the smallest normal: (2^10 - 0.5) x 2^-24 ties to even 0x0400.
  CHECK(float_to_half(std::ldexp(2047.0f, -25)) == 0x0400);
  // Carry into the next binade: 2 - 2^-12 rounds to 2.
  CHECK(float_to_half(2.0f - std::ldexp(1.0f, -12)) == 0x4000);
  CHECK(float_to_half(0.1f) == 0x2E66);
  CHECK(float_to_half(std::numeric_limits<float>::quiet_NaN()) == 0x7E00);
}

TEST_CASE("int32 sum wraps, min and max compare signed", "[transport][sharp]") {
  auto acc = bytes_of<std::int32_t>({1, -5, 2147483647, 7});
  const auto in = bytes_of<std::int32_t>({2, 3, 1, -7});
  auto sum = acc;
  sharp_reduce(SharpOp::kSum, SharpType::kInt32, sum.data(), in.data(), sum.size());
  CHECK(values_of<std::int32_t>(sum) == std::vector<std::int32_t>{3, -2, -2147483647 - 1, 0});
  auto mn = acc;
  sharp_reduce(SharpOp::kMin, SharpType::kInt32, mn.data(), in.data(), mn.size());
  CHECK(values_of<std::int32_t>(mn) == std::vector<std::int32_t>{1, -5, 1, -7});
  sharp_reduce(SharpOp::kMax, SharpType::kInt32, acc.data(), in.data(), acc.size());
  CHECK(values_of<std::int32_t>(acc) == std::vector<std::int32_t>{2, 3, 2147483647, 7});
  // Little-endian on the wire: 1 is 01 00 00 00.
  CHECK(bytes_of<std::int32_t>({1}) == std::vector<std::uint8_t>{1, 0, 0, 0});
}

TEST_CASE("float32 sum, min and max, and a trailing partial element left alone", "[transport][sharp]") {
  auto acc = bytes_of<float>({1.5f, -2.0f, 0.0f});
  const auto in = bytes_of<float>({0.25f, 3.0f, -0.0f});
  auto sum = acc;
  sharp_reduce(SharpOp::kSum, SharpType::kFloat32, sum.data(), in.data(), sum.size());
  CHECK(values_of<float>(sum) == std::vector<float>{1.75f, 1.0f, 0.0f});
  auto mn = acc;
  sharp_reduce(SharpOp::kMin, SharpType::kFloat32, mn.data(), in.data(), mn.size());
  const auto m = values_of<float>(mn);
  CHECK(m[0] == 0.25f);
  CHECK(m[1] == -2.0f);
  CHECK(!std::signbit(m[2]));  // -0 == +0: the first operand is kept
  auto mx = acc;
  sharp_reduce(SharpOp::kMax, SharpType::kFloat32, mx.data(), in.data(), mx.size());
  CHECK(values_of<float>(mx) == std::vector<float>{1.5f, 3.0f, 0.0f});
  // 10 bytes: two whole elements reduced, the last two bytes untouched.
  auto part = bytes_of<float>({1.0f, 1.0f, 1.0f});
  sharp_reduce(SharpOp::kSum, SharpType::kFloat32, part.data(), in.data(), 10);
  CHECK(values_of<float>(part)[1] == 4.0f);
  CHECK(values_of<float>(part)[2] == 1.0f);
}

TEST_CASE("float16 sums are rounded once, to nearest even", "[transport][sharp]") {
  // 2048 + 1: halves at 2048 are 2 apart, a tie between 2048 (0x6800, even) and 2050: 2048.
  // 2050 + 1: tie between 2050 (0x6801) and 2052 (0x6802, even): 2052.
  // 1 + 2^-24 (the smallest subnormal): far below half a unit: 1. 0.1 + 0.2 as halves (0.0999755859375 + 0.199951171875) is 1228.5 units of 2^-12: a tie, to even 0x34CC.
  const auto acc = bytes_of<std::uint16_t>({0x6800, 0x6801, 0x3C00, 0x2E66});
  const auto in = bytes_of<std::uint16_t>({0x3C00, 0x3C00, 0x0001, 0x3266});
  auto sum = acc;
  sharp_reduce(SharpOp::kSum, SharpType::kFloat16, sum.data(), in.data(), sum.size());
  CHECK(values_of<std::uint16_t>(sum) == std::vector<std::uint16_t>{0x6800, 0x6802, 0x3C00, 0x34CC});
  auto mx = acc;
  sharp_reduce(SharpOp::kMax, SharpType::kFloat16, mx.data(), in.data(), mx.size());
  CHECK(values_of<std::uint16_t>(mx) == std::vector<std::uint16_t>{0x6800, 0x6801, 0x3C00, 0x3266});
  // min: -1 (0xBC00) against 0.5 (0x3800); NaN (0x7E00) wins.
  auto a2 = bytes_of<std::uint16_t>({0x3800, 0x3C00});
  const auto b2 = bytes_of<std::uint16_t>({0xBC00, 0x7E00});
  sharp_reduce(SharpOp::kMin, SharpType::kFloat16, a2.data(), b2.data(), a2.size());
  CHECK(values_of<std::uint16_t>(a2) == std::vector<std::uint16_t>{0xBC00, 0x7E00});
}
