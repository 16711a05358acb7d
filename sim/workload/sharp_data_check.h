// The values a SHARP allreduce carries with outputs.data_check (sharp_allreduce.h), and the check
// of its results (nccl-tests' #wrong), as pure functions.
//
// Rank r's element i is r + 1 + (i mod 5): small integers, exact in int32, float32 and float16,
// whose sum over up to 64 ranks stays exact in float16 (below 2048). The exact result of element i
// over n ranks: sum n(n+1)/2 + n (i mod 5); min 1 + (i mod 5); max n + (i mod 5).
#pragma once
#include <cstdint>

#include "sim/transport/sharp/sharp_reduction.h"

namespace ibfsim {

// Rank r's element i.
inline std::int64_t sharp_rank_value(std::uint64_t r, std::uint64_t i) { return static_cast<std::int64_t>(r + 1 + i % 5); }
// The exact reduction of element i over `ranks` ranks.
std::int64_t sharp_expected_value(SharpOp op, std::uint64_t ranks, std::uint64_t i);
// Writes rank r's elements first .. first + count - 1 in `type`, little-endian, at out.
void sharp_fill_values(SharpType type, std::uint64_t r, std::uint64_t first, std::uint64_t count, std::uint8_t* out);
// How many of the `count` little-endian elements at `bytes` (elements first .. first + count - 1 of
// the buffer) are not the exact reduction.
std::uint64_t sharp_count_wrong(SharpOp op, SharpType type, std::uint64_t ranks, std::uint64_t first,
                                const std::uint8_t* bytes, std::uint64_t count);

}  // namespace ibfsim
