// Building expected SMP data in tests: the listed bytes, then zeros to 64.
#pragma once
#include <cstdint>
#include <initializer_list>

#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim::test {

inline SmpData smp_data(std::initializer_list<std::uint8_t> bytes) {
  SmpData d{};
  std::size_t i = 0;
  for (std::uint8_t b : bytes) d[i++] = b;
  return d;
}

inline SmpData filled(std::uint8_t b) {
  SmpData d{};
  d.fill(b);
  return d;
}

}  // namespace ibfsim::test
