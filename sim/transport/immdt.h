// ImmDt, the 4-byte immediate data carried by "with Immediate" operations. Big-endian.
#pragma once
#include <cstddef>
#include <cstdint>

namespace ibfsim {

constexpr std::size_t kImmdtBytes = 4;

// A decoded ImmDt.
struct Immdt {
  std::uint32_t data = 0;
};

void encode_immdt(const Immdt& immdt, std::uint8_t* out4);
Immdt decode_immdt(const std::uint8_t* in4);

}  // namespace ibfsim
