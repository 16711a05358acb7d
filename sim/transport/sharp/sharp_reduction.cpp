#include "sim/transport/sharp/sharp_reduction.h"

#include <algorithm>
#include <cmath>
#include <cstring>

namespace ibfsim {

const char* sharp_op_name(SharpOp op) {
  switch (op) {
    case SharpOp::kSum: return "sum";
    case SharpOp::kMin: return "min";
    case SharpOp::kMax: return "max";
  }
  return "?";
}

const char* sharp_type_name(SharpType type) {
  switch (type) {
    case SharpType::kInt32: return "int32";
    case SharpType::kFloat32: return "float32";
    case SharpType::kFloat16: return "float16";
  }
  return "?";
}

std::optional<SharpOp> sharp_op_from_name(std::string_view name) {
  if (name == "sum") return SharpOp::kSum;
  if (name == "min") return SharpOp::kMin;
  if (name == "max") return SharpOp::kMax;
  return std::nullopt;
}

std::uint32_t sharp_type_bytes(SharpType type) { return type == SharpType::kFloat16 ? 2 : 4; }

float half_to_float(std::uint16_t h) {
  const bool neg = (h & 0x8000) != 0;
  const unsigned exp = (h >> 10) & 0x1F;
  const unsigned frac = h & 0x3FF;
  std::uint32_t bits;
  if (exp == 0x1F) {
    bits = 0x7F800000u | (frac << 13);  // infinity, or NaN with its payload
  } else if (exp != 0) {
    bits = ((exp + 112u) << 23) | (frac << 13);  // rebias 15 -> 127
  } else {
    // Zero or subnormal: frac x 2^-24, exact in a float.
    const float v = std::ldexp(static_cast<float>(frac), -24);
    return neg ? -v : v;
  }
  if (neg) bits |= 0x80000000u;
  float f;
  std::memcpy(&f, &bits, sizeof f);
  return f;
}

std::uint16_t double_to_half(double d) {
  std::uint16_t sign = std::signbit(d) ? 0x8000 : 0;
  if (std::isnan(d)) return static_cast<std::uint16_t>(sign | 0x7E00);
  const double a = std::fabs(d);
  if (std::isinf(a)) return static_cast<std::uint16_t>(sign | 0x7C00);
  if (a == 0) return sign;
  int e;
  std::frexp(a, &e);  // a = m x 2^e, m in [0.5, 1)
  // The spacing of halves around a: 2^(e-11) for normals (11 significant bits), 2^-24 below 2^-14.
  const int quantum_exp = std::max(e - 11, -24);
  // a / quantum is exact in double (a power-of-two scale); nearbyint rounds ties to even under
  // the default rounding mode.
  const double units = std::nearbyint(std::ldexp(a, -quantum_exp));
  const double r = std::ldexp(units, quantum_exp);  // the rounded magnitude
  if (r >= 65536.0) return static_cast<std::uint16_t>(sign | 0x7C00);  // past the largest half (65504)
  if (r < std::ldexp(1.0, -14))  // subnormal (or rounded to zero): units of 2^-24
    return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::ldexp(r, 24)));
  int re;
  const double rm = std::frexp(r, &re);  // rounding may have carried into the next binade
  const auto frac = static_cast<std::uint16_t>(std::ldexp(rm, 11)) & 0x3FF;
  return static_cast<std::uint16_t>(sign | ((re - 1 + 15) << 10) | frac);
}

std::uint16_t float_to_half(float f) { return double_to_half(static_cast<double>(f)); }

namespace {

template <typename T>
T load(const std::uint8_t* p) {
  // Little-endian elements, whatever the simulator's host is.
  std::uint64_t v = 0;
  for (std::size_t i = 0; i < sizeof(T); ++i) v |= std::uint64_t{p[i]} << (8 * i);
  T out;
  if constexpr (sizeof(T) == 4) {
    const auto w = static_cast<std::uint32_t>(v);
    std::memcpy(&out, &w, 4);
  } else {
    const auto w = static_cast<std::uint16_t>(v);
    std::memcpy(&out, &w, 2);
  }
  return out;
}

template <typename T>
void store(std::uint8_t* p, T value) {
  std::uint64_t v = 0;
  if constexpr (sizeof(T) == 4) {
    std::uint32_t w;
    std::memcpy(&w, &value, 4);
    v = w;
  } else {
    std::uint16_t w;
    std::memcpy(&w, &value, 2);
    v = w;
  }
  for (std::size_t i = 0; i < sizeof(T); ++i) p[i] = static_cast<std::uint8_t>(v >> (8 * i));
}

// min and max over values: whether the first operand is the result (a NaN operand wins; on
// equal values, -0 and +0 among them, the first is kept).
template <typename V>
bool keep_first(SharpOp op, V a, V b) {
  if (a != a) return true;
  if (b != b) return false;
  return op == SharpOp::kMin ? !(b < a) : !(b > a);
}

}  // namespace

void sharp_reduce(SharpOp op, SharpType type, std::uint8_t* acc, const std::uint8_t* in, std::size_t bytes) {
  const std::size_t n = bytes / sharp_type_bytes(type);
  for (std::size_t i = 0; i < n; ++i) {
    switch (type) {
      case SharpType::kInt32: {
        std::uint8_t* a = acc + 4 * i;
        const auto x = load<std::int32_t>(a), y = load<std::int32_t>(in + 4 * i);
        std::int32_t r;
        if (op == SharpOp::kSum)
          r = static_cast<std::int32_t>(static_cast<std::uint32_t>(x) + static_cast<std::uint32_t>(y));
        else
          r = op == SharpOp::kMin ? std::min(x, y) : std::max(x, y);
        store(a, r);
        break;
      }
      case SharpType::kFloat32: {
        std::uint8_t* a = acc + 4 * i;
        const auto x = load<float>(a), y = load<float>(in + 4 * i);
        store(a, op == SharpOp::kSum ? x + y : (keep_first(op, x, y) ? x : y));
        break;
      }
      case SharpType::kFloat16: {
        std::uint8_t* a = acc + 2 * i;
        const auto hx = load<std::uint16_t>(a), hy = load<std::uint16_t>(in + 2 * i);
        const double x = half_to_float(hx), y = half_to_float(hy);
        std::uint16_t r;
        if (op == SharpOp::kSum) r = double_to_half(x + y);
        else r = keep_first(op, x, y) ? hx : hy;
        store(a, r);
        break;
      }
    }
  }
}

}  // namespace ibfsim
