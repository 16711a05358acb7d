#include "sim/workload/sharp_data_check.h"

#include <cstring>

namespace ibfsim {

std::int64_t sharp_expected_value(SharpOp op, std::uint64_t ranks, std::uint64_t i) {
  const auto n = static_cast<std::int64_t>(ranks);
  const auto k = static_cast<std::int64_t>(i % 5);
  switch (op) {
    case SharpOp::kSum: return n * (n + 1) / 2 + n * k;
    case SharpOp::kMin: return 1 + k;
    case SharpOp::kMax: return n + k;
  }
  return 0;
}

void sharp_fill_values(SharpType type, std::uint64_t r, std::uint64_t first, std::uint64_t count, std::uint8_t* out) {
  const std::uint32_t size = sharp_type_bytes(type);
  for (std::uint64_t k = 0; k < count; ++k) {
    const std::int64_t v = sharp_rank_value(r, first + k);
    std::uint32_t w;
    if (type == SharpType::kInt32) {
      w = static_cast<std::uint32_t>(v);
    } else if (type == SharpType::kFloat32) {
      const auto f = static_cast<float>(v);
      std::memcpy(&w, &f, 4);
    } else {
      w = float_to_half(static_cast<float>(v));
    }
    for (std::uint32_t j = 0; j < size; ++j) out[k * size + j] = static_cast<std::uint8_t>(w >> (8 * j));
  }
}

std::uint64_t sharp_count_wrong(SharpOp op, SharpType type, std::uint64_t ranks, std::uint64_t first,
                                const std::uint8_t* bytes, std::uint64_t count) {
  const std::uint32_t size = sharp_type_bytes(type);
  std::uint64_t wrong = 0;
  for (std::uint64_t k = 0; k < count; ++k) {
    std::uint32_t w = 0;
    for (std::uint32_t j = 0; j < size; ++j) w |= std::uint32_t{bytes[k * size + j]} << (8 * j);
    double got;
    if (type == SharpType::kInt32) {
      got = static_cast<std::int32_t>(w);
    } else if (type == SharpType::kFloat32) {
      float f;
      std::memcpy(&f, &w, 4);
      got = f;
    } else {
      got = half_to_float(static_cast<std::uint16_t>(w));
    }
    if (got != static_cast<double>(sharp_expected_value(op, ranks, first + k))) ++wrong;
  }
  return wrong;
}

}  // namespace ibfsim
