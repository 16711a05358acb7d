// Random bit errors on a lane at a given bit error rate, reproducible from the scenario seed.
//
// Each line bit is flipped independently with probability BER. Instead of a random draw per bit
// (hopeless at BER 1e-12), the injector draws the gap to the next flipped bit from the geometric
// distribution, so its cost is per error, not per bit. The state (bits to the next error) carries
// over between calls, so the flips depend only on the seed and the position in the lane's bit
// stream, not on how the stream is cut into calls. Use one injector (one RngStream) per lane.
//
// Line bit order: a 10-bit code group is a first (bit 9) ... j (bit 0); a 66-bit block is the sync
// header MSB, its LSB, then payload bits 0..63 (code_8b10b.h, block_64b66b.h).
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/rng.h"
#include "sim/phy/block_64b66b.h"
#include "sim/phy/code_8b10b.h"

namespace ibfsim {

class BitErrorInjector {
 public:
  // bit_error_rate in [0, 1]; 0 never flips anything (and draws nothing).
  BitErrorInjector(double bit_error_rate, RngStream rng);

  void corrupt(CodeGroup10& g);
  void corrupt(Block66& b);
  template <class Unit>
  void corrupt(std::vector<Unit>& units) {
    for (Unit& u : units) corrupt(u);
  }

  // Flips bit i (line order) of one unit on top of the random errors, and counts it: deterministic
  // errors for tests.
  void force(CodeGroup10& g, unsigned i);
  void force(Block66& b, unsigned i);

  double bit_error_rate() const { return ber_; }
  std::uint64_t bits_seen() const { return bits_seen_; }
  std::uint64_t bits_flipped() const { return bits_flipped_; }

 private:
  // Calls flip(i) for each bit i in 0..nbits-1 (line order) that is hit.
  template <class Flip>
  void run(unsigned nbits, Flip flip);
  std::uint64_t draw_gap();

  double ber_;
  RngStream rng_;
  std::uint64_t gap_ = 0;  // clean bits before the next flipped one
  std::uint64_t bits_seen_ = 0;
  std::uint64_t bits_flipped_ = 0;
};

}  // namespace ibfsim
