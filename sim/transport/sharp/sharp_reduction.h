// The reductions a SHARP aggregation node computes (aggregation_node.h): element-wise sum, min and
// max over int32, float32 and float16 vectors. Pure functions over bytes (no SystemC).
//
// Elements are little-endian, as they lie in the hosts' (and GPUs') memory the hosts send from.
// int32 sums wrap around (two's complement), as the hardware's integer adders do. float16 is IEEE
// 754 binary16: each sum is computed exactly (in double, which holds the exact sum of two halves)
// and rounded once to the nearest half, ties to even; min and max of halves and floats compare
// values (a NaN operand gives NaN, -0 and +0 compare equal and the first operand is kept).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace ibfsim {

enum class SharpOp { kSum, kMin, kMax };
enum class SharpType { kInt32, kFloat32, kFloat16 };

const char* sharp_op_name(SharpOp op);        // "sum", "min", "max"
const char* sharp_type_name(SharpType type);  // "int32", "float32", "float16"
std::optional<SharpOp> sharp_op_from_name(std::string_view name);
std::uint32_t sharp_type_bytes(SharpType type);  // 4, 4, 2

// IEEE binary16 <-> binary32: half_to_float is exact; float_to_half rounds to nearest, ties to
// even (overflow to infinity, a NaN becomes the quiet NaN 0x7E00 with its sign, subnormals kept).
float half_to_float(std::uint16_t h);
std::uint16_t float_to_half(float f);
// The same from a double (one rounding: what a sum of halves is rounded with).
std::uint16_t double_to_half(double d);

// acc[i] = acc[i] op in[i] for the bytes / sharp_type_bytes(type) whole elements of both (a
// trailing partial element is left alone).
void sharp_reduce(SharpOp op, SharpType type, std::uint8_t* acc, const std::uint8_t* in, std::size_t bytes);

}  // namespace ibfsim
