#include "sim/phy/scrambler_64b66b.h"

namespace ibfsim {

// Word-parallel form of the bit recurrence. Number the 122 bits "state then block" w[0..121], so
// w[k] = state bit k for k < 58 and w[58 + i] = scrambled bit i. Then out[i] = in[i] ^ w[i + 19]
// ^ w[i] (the bits 39 and 58 back). Terms that come from the state are known at once; the ones
// from this block's own output are bits 0..24 (39 back) and 0..5 (58 back), which are final before
// they are used: the first XOR fixes bits 0..38 completely, the second shift only reads those.
std::uint64_t Scrambler64b66b::scramble(std::uint64_t payload) {
  std::uint64_t out = payload ^ (state_ >> 19) ^ state_;  // state terms: bits 0..38 and 0..57
  out ^= out << 39;  // bits 39..63 get out[i - 39] (bits 0..24, already final)
  out ^= out << 58;  // bits 58..63 get out[i - 58] (bits 0..5, final)
  state_ = out >> 6;  // the last 58 scrambled bits: out[6..63]
  return out;
}

std::uint64_t Descrambler64b66b::descramble(std::uint64_t payload) {
  // Same recurrence, but every term is a received bit, so it is a plain feed-forward XOR.
  const std::uint64_t back39 = (payload << 39) | (state_ >> 19);
  const std::uint64_t back58 = (payload << 58) | state_;
  state_ = payload >> 6;
  return payload ^ back39 ^ back58;
}

}  // namespace ibfsim
