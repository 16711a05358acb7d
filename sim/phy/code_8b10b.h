// 8b/10b line code (Widmer-Franaszek, as used by IB SDR/DDR/QDR; IBA Vol 2).
//
// Each byte becomes a 10-bit code group chosen so that the line stays DC balanced: a code group has
// either as many ones as zeros, or two more of one kind, and the transmitter alternates the
// unbalanced ones using the running disparity (RD-: more zeros sent so far, RD+: more ones).
//
// Bit order. The input byte is HGF EDCBA with A = bit 0. The 5 low bits EDCBA (value x) become the
// 6-bit sub-block abcdei and the 3 high bits HGF (value y) the 4-bit sub-block fghj; the symbol is
// written D.x.y (data) or K.x.y (control). A code group is held in a 16-bit integer with
// bit 9 = a, bit 8 = b, ..., bit 4 = i, bit 3 = f, ..., bit 0 = j, so that printing it in binary
// MSB first reads "abcdei fghj" like the standard's tables: K28.5 at RD- is 0b001111'1010 (0x0FA).
// Bit a is transmitted first.
//
// The encoder's tables are built from the standard 5b/6b and 3b/4b tables for RD- and the rules
// that derive everything else (complement at RD+, the D.x.A7 alternate, K groups); the decoder's
// table is the inverse of every group the encoder can produce.
#pragma once
#include <cstdint>

namespace ibfsim {

// One symbol before coding: a byte and whether it is a control (K) symbol.
struct Symbol8b10b {
  std::uint8_t value = 0;
  bool control = false;

  // x and y of D.x.y / K.x.y.
  constexpr unsigned x() const { return value & 0x1Fu; }
  constexpr unsigned y() const { return value >> 5; }
  friend constexpr bool operator==(Symbol8b10b a, Symbol8b10b b) {
    return a.value == b.value && a.control == b.control;
  }
  friend constexpr bool operator!=(Symbol8b10b a, Symbol8b10b b) { return !(a == b); }
};

// D.x.y and K.x.y by name (x 0..31, y 0..7), and a data byte.
constexpr Symbol8b10b d_symbol(unsigned x, unsigned y) {
  return Symbol8b10b{static_cast<std::uint8_t>((y << 5) | x), false};
}
constexpr Symbol8b10b k_symbol(unsigned x, unsigned y) {
  return Symbol8b10b{static_cast<std::uint8_t>((y << 5) | x), true};
}
constexpr Symbol8b10b data_symbol(std::uint8_t byte) { return Symbol8b10b{byte, false}; }

// The valid control symbols: K28.0 .. K28.7, K23.7, K27.7, K29.7, K30.7.
bool is_valid_control(std::uint8_t value);

// Control symbols by code, and the IB names for the ones the physical layer uses (IBA Vol 2).
namespace sym8b10b {
constexpr Symbol8b10b kK28_0 = k_symbol(28, 0);
constexpr Symbol8b10b kK28_1 = k_symbol(28, 1);
constexpr Symbol8b10b kK28_2 = k_symbol(28, 2);
constexpr Symbol8b10b kK28_3 = k_symbol(28, 3);
constexpr Symbol8b10b kK28_4 = k_symbol(28, 4);
constexpr Symbol8b10b kK28_5 = k_symbol(28, 5);
constexpr Symbol8b10b kK28_6 = k_symbol(28, 6);
constexpr Symbol8b10b kK28_7 = k_symbol(28, 7);
constexpr Symbol8b10b kK23_7 = k_symbol(23, 7);
constexpr Symbol8b10b kK27_7 = k_symbol(27, 7);
constexpr Symbol8b10b kK29_7 = k_symbol(29, 7);
constexpr Symbol8b10b kK30_7 = k_symbol(30, 7);

constexpr Symbol8b10b kCom = kK28_5;  // comma: starts SKIP and TS1/TS2 ordered sets
constexpr Symbol8b10b kSdp = kK27_7;  // start of data packet
constexpr Symbol8b10b kSlp = kK28_2;  // start of link packet
constexpr Symbol8b10b kEgp = kK29_7;  // end of good packet
constexpr Symbol8b10b kEbp = kK30_7;  // end of bad packet
constexpr Symbol8b10b kPad = kK23_7;  // fill to the end of the last code unit of a packet
constexpr Symbol8b10b kSkp = kK28_0;  // clock-compensation filler in the SKIP ordered set
// What a lane carries when the link has nothing to send. The IB idle pattern is in Vol 2, not at
// hand: this is the project's stand-in (data 00h, as PCIe's logical idle), to be replaced.
constexpr Symbol8b10b kIdle = d_symbol(0, 0);
}  // namespace sym8b10b

// Running disparity between code groups.
enum class Disparity : std::uint8_t { kNegative, kPositive };

constexpr Disparity opposite(Disparity d) {
  return d == Disparity::kNegative ? Disparity::kPositive : Disparity::kNegative;
}

// A 10-bit code group, bit 9 = a (first on the wire) ... bit 0 = j.
using CodeGroup10 = std::uint16_t;
constexpr unsigned kCodeGroupBits = 10;

// The code group for `s` when the running disparity is `rd`. Throws std::invalid_argument for a
// control symbol that has no code group (see is_valid_control).
CodeGroup10 encode_8b10b(Symbol8b10b s, Disparity rd);

// The running disparity after `g` was sent or received at `rd`, by the standard's sub-block rule:
// a sub-block with more ones than zeros (or 000111 / 0011) leaves RD+, one with more zeros (or
// 111000 / 1100) leaves RD-, any other leaves RD unchanged. Defined for every 10-bit value, so a
// receiver keeps tracking disparity across a code violation.
Disparity disparity_after(CodeGroup10 g, Disparity rd);

// Stateful transmitter of one lane: encodes symbols and keeps the running disparity. A lane starts
// at RD- after reset.
class Encoder8b10b {
 public:
  explicit Encoder8b10b(Disparity initial = Disparity::kNegative) : rd_(initial) {}

  CodeGroup10 encode(Symbol8b10b s);
  Disparity running_disparity() const { return rd_; }

 private:
  Disparity rd_;
};

// What a receiver made of one code group.
enum class Decode8b10bStatus : std::uint8_t {
  kOk,              // a valid group for the current running disparity
  kDisparityError,  // a valid group, but only for the other running disparity
  kCodeViolation,   // not a code group at all
};

// One received code group, decoded.
struct Decoded8b10b {
  Symbol8b10b symbol;  // meaningless when status is kCodeViolation (then D0.0)
  Decode8b10bStatus status = Decode8b10bStatus::kOk;

  bool ok() const { return status == Decode8b10bStatus::kOk; }
  // The symbol is known (possibly with a disparity error).
  bool valid() const { return status != Decode8b10bStatus::kCodeViolation; }
};

// Stateless decode of `g` received at running disparity `rd`.
Decoded8b10b decode_8b10b(CodeGroup10 g, Disparity rd);

// Stateful receiver of one lane: decodes groups, tracks the running disparity from the received
// bits (so after an error it resynchronises on the received stream) and counts errors.
class Decoder8b10b {
 public:
  explicit Decoder8b10b(Disparity initial = Disparity::kNegative) : rd_(initial) {}

  Decoded8b10b decode(CodeGroup10 g);
  Disparity running_disparity() const { return rd_; }
  std::uint64_t code_violations() const { return code_violations_; }
  std::uint64_t disparity_errors() const { return disparity_errors_; }

 private:
  Disparity rd_;
  std::uint64_t code_violations_ = 0;
  std::uint64_t disparity_errors_ = 0;
};

}  // namespace ibfsim
