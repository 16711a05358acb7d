// Values of command-line flags that CLI11 would otherwise convert loosely.
#pragma once
#include <cstdint>
#include <string>

namespace ibfsim {

// --seed: a decimal (or 0x hex) integer in 0..2^64-1, nothing else. Throws InputError
// "--seed: expected an integer in 0..18446744073709551615, got '...'" (never wraps a negative or
// too large number into range).
std::uint64_t parse_seed_flag(const std::string& text);

}  // namespace ibfsim
