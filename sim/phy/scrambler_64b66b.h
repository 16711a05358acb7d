// The self-synchronous scrambler of 64b/66b (polynomial x^58 + x^39 + 1; IEEE 802.3 clause 49,
// which IB FDR/EDR use; IBA Vol 2 Rel 1.3, ch. 5).
//
// Only the 64 payload bits of a block are scrambled; the 2-bit sync header goes out in clear so
// the receiver can find block boundaries. Each scrambled bit is
//     out[n] = in[n] XOR out[n-39] XOR out[n-58]
// over the serial stream, and the descrambler undoes it with the received bits,
//     in[n] = out[n] XOR out[n-39] XOR out[n-58],
// so it needs no shared state: after 58 received bits it is in step with any transmitter, and one
// line bit error turns into exactly three payload bit errors (at n, n+39, n+58).
//
// Bit order: payload bit 0 (the LSB of the 64-bit word) is the first on the wire, as 802.3's
// TXD<0>. The 58-bit state holds the last 58 scrambled bits: state bit 57 is the most recent one
// and bit 0 the oldest (the one 58 bits back).
#pragma once
#include <cstdint>

namespace ibfsim {

constexpr unsigned kScramblerStateBits = 58;
constexpr std::uint64_t kScramblerStateMask = (std::uint64_t{1} << kScramblerStateBits) - 1;

// Transmit side of one lane.
class Scrambler64b66b {
 public:
  // 802.3 leaves the initial state free (the descrambler synchronises itself); all ones avoids
  // the long runs of zeros that an all-zero state would produce for an all-zero payload at reset.
  explicit Scrambler64b66b(std::uint64_t state = kScramblerStateMask) : state_(state & kScramblerStateMask) {}

  // Scrambles one block payload (64 bits, bit 0 first) and advances the state.
  std::uint64_t scramble(std::uint64_t payload);
  std::uint64_t state() const { return state_; }

 private:
  std::uint64_t state_;
};

// Receive side of one lane.
class Descrambler64b66b {
 public:
  explicit Descrambler64b66b(std::uint64_t state = kScramblerStateMask) : state_(state & kScramblerStateMask) {}

  // Descrambles one received payload and advances the state (which is then the last 58 received
  // bits, whatever it was before).
  std::uint64_t descramble(std::uint64_t payload);
  std::uint64_t state() const { return state_; }

 private:
  std::uint64_t state_;
};

}  // namespace ibfsim
