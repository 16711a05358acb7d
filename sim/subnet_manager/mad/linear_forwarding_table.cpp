#include "sim/subnet_manager/mad/linear_forwarding_table.h"

#include <algorithm>

namespace ibfsim {

SmpData encode_linear_forwarding_table(const LinearForwardingTableBlock& block) {
  SmpData out{};
  std::copy(block.ports.begin(), block.ports.end(), out.begin());
  return out;
}

LinearForwardingTableBlock decode_linear_forwarding_table(const std::uint8_t* in64) {
  LinearForwardingTableBlock block;
  std::copy_n(in64, kLftBlockEntries, block.ports.begin());
  return block;
}

}  // namespace ibfsim
