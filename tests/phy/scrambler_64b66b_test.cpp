#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/rng.h"
#include "sim/phy/scrambler_64b66b.h"

using namespace ibfsim;

namespace {
// Bit-serial reference written from the polynomial alone: a 58-stage shift register of the
// scrambled bits, newest in stage 1; each input bit (LSB of the payload first) is XORed with
// stages 39 and 58 and the result shifted in.
struct SerialScrambler {
  std::vector<int> stage;  // stage[0] = stage 1 (newest) ... stage[57] = stage 58

  explicit SerialScrambler(std::uint64_t impl_state) : stage(58) {
    // The implementation keeps its newest bit in state bit 57 and the oldest in bit 0.
    for (int j = 0; j < 58; ++j) stage[j] = static_cast<int>((impl_state >> (57 - j)) & 1);
  }
  std::uint64_t scramble(std::uint64_t in) {
    std::uint64_t out = 0;
    for (int i = 0; i < 64; ++i) {
      const int b = static_cast<int>((in >> i) & 1) ^ stage[38] ^ stage[57];
      stage.insert(stage.begin(), b);
      stage.pop_back();
      out |= static_cast<std::uint64_t>(b) << i;
    }
    return out;
  }
};
}  // namespace

TEST_CASE("64b/66b scrambler matches a bit-serial x^58 + x^39 + 1 reference", "[phy][64b66b]") {
  // A known input: all-zero payloads from the all-ones state give the scrambler's own sequence.
  {
    Scrambler64b66b s;
    SerialScrambler ref(kScramblerStateMask);
    for (int n = 0; n < 8; ++n) REQUIRE(s.scramble(0) == ref.scramble(0));
    // Worked by hand: bits 0..38 reach back to two state ones (0), bits 39..57 to out[i-39] = 0
    // and a state one (1), bits 58..63 to out[i-39] = 0 and out[i-58] = 0.
    Scrambler64b66b s2;
    CHECK(s2.scramble(0) == 0x03FF'FF80'0000'0000ull);
  }
  // A fixed input and state.
  {
    const std::uint64_t state = 0x0123456789ABCDEull & kScramblerStateMask;
    Scrambler64b66b s(state);
    SerialScrambler ref(state);
    const std::uint64_t in[] = {0x0000000000000000ull, 0xFFFFFFFFFFFFFFFFull, 0x0123456789ABCDEFull, 0x8000000000000001ull};
    for (std::uint64_t x : in) CHECK(s.scramble(x) == ref.scramble(x));
  }
  // Random blocks from random states, and the descrambler undoes them.
  RngStream rng(3, 4);
  for (int trial = 0; trial < 20; ++trial) {
    const std::uint64_t state = rng.next_u64() & kScramblerStateMask;
    Scrambler64b66b s(state);
    Descrambler64b66b d(state);
    SerialScrambler ref(state);
    for (int n = 0; n < 200; ++n) {
      const std::uint64_t x = rng.next_u64();
      const std::uint64_t y = s.scramble(x);
      REQUIRE(y == ref.scramble(x));
      REQUIRE(d.descramble(y) == x);
    }
    CHECK(d.state() == s.state());
  }
}

TEST_CASE("64b/66b descrambler synchronises itself within one block", "[phy][64b66b]") {
  RngStream rng(5, 6);
  Scrambler64b66b s(rng.next_u64());
  Descrambler64b66b d(0);  // knows nothing of the transmitter's state
  const std::uint64_t x0 = rng.next_u64();
  const std::uint64_t first = d.descramble(s.scramble(x0));
  // Bits 58..63 only reach back into this block.
  CHECK((first >> 58) == (x0 >> 58));
  for (int n = 0; n < 100; ++n) {
    const std::uint64_t x = rng.next_u64();
    REQUIRE(d.descramble(s.scramble(x)) == x);
  }
}

TEST_CASE("64b/66b one line bit error becomes three payload bit errors", "[phy][64b66b]") {
  RngStream rng(8, 9);
  std::vector<std::uint64_t> in(4), line(4);
  Scrambler64b66b s;
  for (int i = 0; i < 4; ++i) line[i] = s.scramble(in[i] = rng.next_u64());
  line[1] ^= std::uint64_t{1} << 10;  // line bit 64 + 10
  Descrambler64b66b d;
  std::vector<std::uint64_t> errors(4);
  for (int i = 0; i < 4; ++i) errors[i] = d.descramble(line[i]) ^ in[i];
  CHECK(errors[0] == 0);
  // Stream bits 74, 74 + 39 = 113, 74 + 58 = 132: block 1 bits 10 and 49, block 2 bit 4.
  CHECK(errors[1] == ((std::uint64_t{1} << 10) | (std::uint64_t{1} << 49)));
  CHECK(errors[2] == (std::uint64_t{1} << 4));
  CHECK(errors[3] == 0);
}
