#include "sim/phy/code_8b10b.h"

#include <array>
#include <stdexcept>
#include <string>

namespace ibfsim {

namespace {

// The standard 5b/6b table, RD- column, written abcdei (x = EDCBA = 0..31). K.28 (001111) is not
// a data code and is handled apart.
constexpr std::uint8_t k6bNeg[32] = {
    0b100111, 0b011101, 0b101101, 0b110001, 0b110101, 0b101001, 0b011001, 0b111000,  // 0..7
    0b111001, 0b100101, 0b010101, 0b110100, 0b001101, 0b101100, 0b011100, 0b010111,  // 8..15
    0b011011, 0b100011, 0b010011, 0b110010, 0b001011, 0b101010, 0b011010, 0b111010,  // 16..23
    0b110011, 0b100110, 0b010110, 0b110110, 0b001110, 0b101110, 0b011110, 0b101011,  // 24..31
};
constexpr std::uint8_t k6bK28Neg = 0b001111;

// The standard 3b/4b table, RD- column, written fghj (y = HGF = 0..7), with the primary D.x.P7.
constexpr std::uint8_t k4bNeg[8] = {0b1011, 0b1001, 0b0101, 0b1100, 0b1101, 0b1010, 0b0110, 0b1110};
// The alternate D.x.A7 (RD- column). It replaces P7 where P7 would make a run of five equal bits
// across the sub-block boundary (e i f g h), which only the comma groups may have: after a 6b
// ending in "11" sent at RD- (x = 17, 18, 20) and after one ending in "00" sent at RD+ (x = 11,
// 13, 14). Every K.x.7 uses it too, which keeps K23/27/29/30.7 apart from the data groups.
constexpr std::uint8_t k4bA7Neg = 0b0111;

int ones(unsigned v) { return __builtin_popcount(v); }

// RD after one sub-block of `bits` bits (6 or 4) sent at `rd`.
Disparity sub_block_rd(unsigned code, unsigned bits, Disparity rd) {
  const int o = ones(code);
  const int half = static_cast<int>(bits / 2);
  if (o > half) return Disparity::kPositive;
  if (o < half) return Disparity::kNegative;
  // Balanced: 000111 / 0011 leave RD+, 111000 / 1100 leave RD- (they alternate like unbalanced
  // ones, so that the run of equal bits at the next boundary stays short); others keep RD.
  if (bits == 6 && code == 0b000111) return Disparity::kPositive;
  if (bits == 6 && code == 0b111000) return Disparity::kNegative;
  if (bits == 4 && code == 0b0011) return Disparity::kPositive;
  if (bits == 4 && code == 0b1100) return Disparity::kNegative;
  return rd;
}

// A sub-block at RD+ is the complement of its RD- form when it is unbalanced or is one of the two
// balanced pairs that alternate (111000/000111, 1100/0011); other balanced ones are the same.
unsigned at_rd(unsigned neg_code, unsigned bits, Disparity rd) {
  if (rd == Disparity::kNegative) return neg_code;
  const unsigned mask = (1u << bits) - 1;
  const bool alternating = (bits == 6 && neg_code == 0b111000) || (bits == 4 && neg_code == 0b1100);
  if (ones(neg_code) != static_cast<int>(bits / 2) || alternating) return ~neg_code & mask;
  return neg_code;
}

CodeGroup10 encode_data(unsigned x, unsigned y, Disparity rd) {
  const unsigned six = at_rd(k6bNeg[x], 6, rd);
  const Disparity mid = sub_block_rd(six, 6, rd);
  unsigned four_neg = k4bNeg[y];
  if (y == 7) {
    const bool alt = (mid == Disparity::kNegative && (x == 17 || x == 18 || x == 20)) ||
                     (mid == Disparity::kPositive && (x == 11 || x == 13 || x == 14));
    if (alt) four_neg = k4bA7Neg;
  }
  return static_cast<CodeGroup10>((six << 4) | at_rd(four_neg, 4, mid));
}

// K groups: at RD- the 6b is K.28's 001111 or the data 6b (all five are +2, so the 4b is sent at
// RD+), and the 4b is the data 4b at RD+ with A7 for y = 7. At RD+ the whole group is the
// complement. (So K28.1/.2/.5/.6 complement their balanced 4b as well, unlike data.)
CodeGroup10 encode_control(unsigned x, unsigned y, Disparity rd) {
  const unsigned six = x == 28 ? k6bK28Neg : k6bNeg[x];
  const unsigned four = at_rd(y == 7 ? k4bA7Neg : k4bNeg[y], 4, Disparity::kPositive);
  const CodeGroup10 neg = static_cast<CodeGroup10>((six << 4) | four);
  return rd == Disparity::kNegative ? neg : static_cast<CodeGroup10>(~neg & 0x3FF);
}

bool valid_control(std::uint8_t value) {
  const unsigned x = value & 0x1Fu;
  const unsigned y = value >> 5;
  return x == 28 || (y == 7 && (x == 23 || x == 27 || x == 29 || x == 30));
}

// The rules above, run once over every input into lookup tables (the line code runs per symbol in
// bit-exact mode, so per-symbol work should be a table read):
//   encode[rd][v]     the group of symbol index v (value | control << 8) at rd, 0xFFFF if none
//   symbol[rd][g]     the inverse: the symbol index whose group g is at rd, or -1
//   rd_after[rd][g]   disparity_after for every 10-bit value
struct Tables {
  std::array<std::array<CodeGroup10, 512>, 2> encode{};
  std::array<std::array<std::int16_t, 1024>, 2> symbol{};
  std::array<std::array<Disparity, 1024>, 2> rd_after{};

  Tables() {
    for (int rd = 0; rd < 2; ++rd) {
      const Disparity d = static_cast<Disparity>(rd);
      symbol[rd].fill(-1);
      for (unsigned g = 0; g < 1024; ++g) {
        const Disparity mid = sub_block_rd((g >> 4) & 0x3F, 6, d);
        rd_after[rd][g] = sub_block_rd(g & 0xF, 4, mid);
      }
      for (unsigned v = 0; v < 512; ++v) {
        const bool control = v >= 256;
        const unsigned x = v & 0x1F, y = (v >> 5) & 0x7;
        if (control && !valid_control(static_cast<std::uint8_t>(v & 0xFF))) {
          encode[rd][v] = 0xFFFF;
          continue;
        }
        const CodeGroup10 g = control ? encode_control(x, y, d) : encode_data(x, y, d);
        encode[rd][v] = g;
        if (symbol[rd][g] != -1) throw std::logic_error("8b/10b: two symbols share a code group");
        symbol[rd][g] = static_cast<std::int16_t>(v);
      }
    }
  }
};

const Tables& tables() {
  static const Tables t;
  return t;
}

Symbol8b10b from_index(std::int16_t v) {
  return Symbol8b10b{static_cast<std::uint8_t>(v & 0xFF), v >= 256};
}

}  // namespace

bool is_valid_control(std::uint8_t value) { return valid_control(value); }

CodeGroup10 encode_8b10b(Symbol8b10b s, Disparity rd) {
  const CodeGroup10 g = tables().encode[static_cast<int>(rd)][s.value | (s.control ? 256u : 0u)];
  if (g == 0xFFFF)
    throw std::invalid_argument("8b/10b: K." + std::to_string(s.x()) + "." + std::to_string(s.y()) +
                                " is not a control symbol");
  return g;
}

Disparity disparity_after(CodeGroup10 g, Disparity rd) { return tables().rd_after[static_cast<int>(rd)][g & 0x3FF]; }

CodeGroup10 Encoder8b10b::encode(Symbol8b10b s) {
  const CodeGroup10 g = encode_8b10b(s, rd_);
  rd_ = disparity_after(g, rd_);
  return g;
}

Decoded8b10b decode_8b10b(CodeGroup10 g, Disparity rd) {
  const auto& t = tables().symbol;
  g &= 0x3FF;
  const int r = static_cast<int>(rd);
  if (t[r][g] >= 0) return {from_index(t[r][g]), Decode8b10bStatus::kOk};
  if (t[1 - r][g] >= 0) return {from_index(t[1 - r][g]), Decode8b10bStatus::kDisparityError};
  return {Symbol8b10b{}, Decode8b10bStatus::kCodeViolation};
}

Decoded8b10b Decoder8b10b::decode(CodeGroup10 g) {
  g &= 0x3FF;
  const Decoded8b10b d = decode_8b10b(g, rd_);
  if (d.status == Decode8b10bStatus::kCodeViolation) ++code_violations_;
  if (d.status == Decode8b10bStatus::kDisparityError) ++disparity_errors_;
  rd_ = disparity_after(g, rd_);
  return d;
}

}  // namespace ibfsim
