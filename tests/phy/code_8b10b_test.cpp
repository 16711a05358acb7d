#include <catch2/catch.hpp>

#include <algorithm>
#include <set>
#include <string>

#include "sim/core/rng.h"
#include "sim/phy/code_8b10b.h"

using namespace ibfsim;

namespace {
// "abcdei fghj" as printed in the standard's tables.
CodeGroup10 cg(const std::string& bits) {
  CodeGroup10 g = 0;
  for (char c : bits)
    if (c == '0' || c == '1') g = static_cast<CodeGroup10>((g << 1) | (c == '1'));
  return g;
}
constexpr Disparity kNeg = Disparity::kNegative;
constexpr Disparity kPos = Disparity::kPositive;

// Every symbol the code has: 256 data bytes and the 12 control symbols.
std::vector<Symbol8b10b> all_symbols() {
  std::vector<Symbol8b10b> out;
  for (unsigned v = 0; v < 256; ++v) out.push_back(data_symbol(static_cast<std::uint8_t>(v)));
  for (unsigned v = 0; v < 256; ++v)
    if (is_valid_control(static_cast<std::uint8_t>(v))) out.push_back(Symbol8b10b{static_cast<std::uint8_t>(v), true});
  return out;
}
}  // namespace

TEST_CASE("8b/10b code groups match the standard's tables bit for bit", "[phy][8b10b]") {
  // Comma and the IB control symbols.
  CHECK(encode_8b10b(sym8b10b::kK28_5, kNeg) == cg("001111 1010"));
  CHECK(encode_8b10b(sym8b10b::kK28_5, kPos) == cg("110000 0101"));
  CHECK(encode_8b10b(sym8b10b::kK28_5, kNeg) == 0x0FA);
  CHECK(encode_8b10b(sym8b10b::kK28_0, kNeg) == cg("001111 0100"));
  CHECK(encode_8b10b(sym8b10b::kK28_0, kPos) == cg("110000 1011"));
  CHECK(encode_8b10b(sym8b10b::kK28_1, kNeg) == cg("001111 1001"));
  CHECK(encode_8b10b(sym8b10b::kK28_1, kPos) == cg("110000 0110"));
  CHECK(encode_8b10b(sym8b10b::kK28_2, kNeg) == cg("001111 0101"));
  CHECK(encode_8b10b(sym8b10b::kK28_2, kPos) == cg("110000 1010"));
  CHECK(encode_8b10b(sym8b10b::kK28_7, kNeg) == cg("001111 1000"));
  CHECK(encode_8b10b(sym8b10b::kK23_7, kNeg) == cg("111010 1000"));
  CHECK(encode_8b10b(sym8b10b::kK23_7, kPos) == cg("000101 0111"));
  CHECK(encode_8b10b(sym8b10b::kK27_7, kNeg) == cg("110110 1000"));
  CHECK(encode_8b10b(sym8b10b::kK27_7, kPos) == cg("001001 0111"));
  CHECK(encode_8b10b(sym8b10b::kK29_7, kNeg) == cg("101110 1000"));
  CHECK(encode_8b10b(sym8b10b::kK29_7, kPos) == cg("010001 0111"));
  CHECK(encode_8b10b(sym8b10b::kK30_7, kNeg) == cg("011110 1000"));
  CHECK(encode_8b10b(sym8b10b::kK30_7, kPos) == cg("100001 0111"));
  CHECK(sym8b10b::kCom == k_symbol(28, 5));
  CHECK(sym8b10b::kSdp == k_symbol(27, 7));
  CHECK(sym8b10b::kSlp == k_symbol(28, 2));
  CHECK(sym8b10b::kEgp == k_symbol(29, 7));
  CHECK(sym8b10b::kEbp == k_symbol(30, 7));
  CHECK(sym8b10b::kPad == k_symbol(23, 7));
  CHECK(sym8b10b::kSkp == k_symbol(28, 0));

  // Balanced groups are the same at both disparities.
  CHECK(encode_8b10b(d_symbol(21, 5), kNeg) == cg("101010 1010"));
  CHECK(encode_8b10b(d_symbol(21, 5), kPos) == cg("101010 1010"));
  CHECK(encode_8b10b(d_symbol(10, 2), kNeg) == cg("010101 0101"));
  CHECK(encode_8b10b(d_symbol(10, 2), kPos) == cg("010101 0101"));
  CHECK(encode_8b10b(d_symbol(5, 2), kNeg) == cg("101001 0101"));
  CHECK(encode_8b10b(d_symbol(5, 2), kPos) == cg("101001 0101"));
  // Unbalanced sub-blocks alternate.
  CHECK(encode_8b10b(d_symbol(0, 0), kNeg) == cg("100111 0100"));
  CHECK(encode_8b10b(d_symbol(0, 0), kPos) == cg("011000 1011"));
  CHECK(encode_8b10b(d_symbol(24, 0), kNeg) == cg("110011 0100"));
  CHECK(encode_8b10b(d_symbol(3, 3), kNeg) == cg("110001 1100"));
  CHECK(encode_8b10b(d_symbol(3, 3), kPos) == cg("110001 0011"));
  CHECK(encode_8b10b(d_symbol(7, 0), kNeg) == cg("111000 1011"));
  CHECK(encode_8b10b(d_symbol(7, 0), kPos) == cg("000111 0100"));
  // D.x.7: the alternate A7 after x = 17, 18, 20 at RD- and x = 11, 13, 14 at RD+; P7 elsewhere.
  CHECK(encode_8b10b(d_symbol(17, 7), kNeg) == cg("100011 0111"));
  CHECK(encode_8b10b(d_symbol(17, 7), kPos) == cg("100011 0001"));
  CHECK(encode_8b10b(d_symbol(18, 7), kNeg) == cg("010011 0111"));
  CHECK(encode_8b10b(d_symbol(20, 7), kNeg) == cg("001011 0111"));
  CHECK(encode_8b10b(d_symbol(11, 7), kNeg) == cg("110100 1110"));
  CHECK(encode_8b10b(d_symbol(11, 7), kPos) == cg("110100 1000"));
  CHECK(encode_8b10b(d_symbol(13, 7), kPos) == cg("101100 1000"));
  CHECK(encode_8b10b(d_symbol(14, 7), kPos) == cg("011100 1000"));
  CHECK(encode_8b10b(d_symbol(7, 7), kNeg) == cg("111000 1110"));
  CHECK(encode_8b10b(d_symbol(7, 7), kPos) == cg("000111 0001"));
  CHECK(encode_8b10b(d_symbol(23, 7), kNeg) == cg("111010 0001"));
  CHECK(encode_8b10b(d_symbol(31, 7), kNeg) == cg("101011 0001"));

  CHECK_THROWS_AS(encode_8b10b(k_symbol(0, 0), kNeg), std::invalid_argument);
  CHECK_THROWS_AS(encode_8b10b(k_symbol(21, 5), kNeg), std::invalid_argument);
  int controls = 0;
  for (unsigned v = 0; v < 256; ++v) controls += is_valid_control(static_cast<std::uint8_t>(v));
  CHECK(controls == 12);
}

TEST_CASE("8b/10b every 10-bit value that is no code group is a code violation", "[phy][8b10b]") {
  std::set<CodeGroup10> valid[2];
  for (const Symbol8b10b s : all_symbols())
    for (int rd = 0; rd < 2; ++rd) valid[rd].insert(encode_8b10b(s, static_cast<Disparity>(rd)));
  std::set<CodeGroup10> any(valid[0].begin(), valid[0].end());
  any.insert(valid[1].begin(), valid[1].end());
  // 268 symbols at two disparities; 18 balanced, non-alternating 6b codes times the 4 balanced,
  // non-alternating 4b codes (x.1, x.2, x.5, x.6) are the same at both: 536 - 72 = 464.
  CHECK(valid[0].size() == 268);
  CHECK(valid[1].size() == 268);
  CHECK(any.size() == 464);

  std::size_t violations = 0;
  for (unsigned v = 0; v < 1024; ++v) {
    const auto g = static_cast<CodeGroup10>(v);
    for (int rd = 0; rd < 2; ++rd) {
      const Decoded8b10b d = decode_8b10b(g, static_cast<Disparity>(rd));
      if (!any.count(g)) {
        CHECK(d.status == Decode8b10bStatus::kCodeViolation);
        ++violations;
      } else if (valid[rd].count(g)) {
        CHECK(d.status == Decode8b10bStatus::kOk);
      } else {
        CHECK(d.status == Decode8b10bStatus::kDisparityError);
      }
    }
  }
  CHECK(violations == 2 * (1024 - 464));

  // Every group decodes to the symbol it came from.
  for (const Symbol8b10b s : all_symbols())
    for (int rd = 0; rd < 2; ++rd) {
      const Decoded8b10b d = decode_8b10b(encode_8b10b(s, static_cast<Disparity>(rd)), static_cast<Disparity>(rd));
      CHECK(d.ok());
      CHECK(d.symbol == s);
    }
}

TEST_CASE("8b/10b random streams round trip with the running digital sum bounded", "[phy][8b10b]") {
  RngStream rng(42, 1);
  const auto symbols = all_symbols();
  Encoder8b10b enc;
  Decoder8b10b dec;
  int rds = -1;  // RD- means one more zero than ones so far, at a group boundary
  int min_rds = 0, max_rds = 0, run = 0, max_run = 0, last_bit = -1;
  for (int n = 0; n < 200000; ++n) {
    // Mostly data, some control symbols.
    const Symbol8b10b s = rng.below(10) == 0 ? symbols[256 + rng.below(12)] : data_symbol(static_cast<std::uint8_t>(rng.below(256)));
    const CodeGroup10 g = enc.encode(s);
    for (int b = 9; b >= 0; --b) {
      const int bit = (g >> b) & 1;
      rds += bit ? 1 : -1;
      min_rds = std::min(min_rds, rds);
      max_rds = std::max(max_rds, rds);
      run = bit == last_bit ? run + 1 : 1;
      last_bit = bit;
      max_run = std::max(max_run, run);
    }
    REQUIRE(rds == (enc.running_disparity() == Disparity::kPositive ? 1 : -1));
    const Decoded8b10b d = dec.decode(g);
    REQUIRE(d.ok());
    REQUIRE(d.symbol == s);
    REQUIRE(dec.running_disparity() == enc.running_disparity());
  }
  CHECK(min_rds >= -3);
  CHECK(max_rds <= 3);
  CHECK(max_run <= 5);
  CHECK(dec.code_violations() == 0);
  CHECK(dec.disparity_errors() == 0);
}

TEST_CASE("8b/10b commas appear only in K28.1, K28.5 and K28.7, and data groups have no run of five", "[phy][8b10b]") {
  // The comma 0011111 / 1100000 is what lets a receiver find symbol boundaries; it must not turn up
  // at any other bit offset of a data stream.
  RngStream rng(7, 2);
  Encoder8b10b enc;
  std::uint64_t window = 0;
  int bits = 0;
  int commas = 0;
  for (int n = 0; n < 100000; ++n) {
    const CodeGroup10 g = enc.encode(data_symbol(static_cast<std::uint8_t>(rng.below(256))));
    for (int b = 9; b >= 0; --b) {
      window = ((window << 1) | ((g >> b) & 1)) & 0x7F;
      if (++bits >= 7 && (window == 0b0011111 || window == 0b1100000)) ++commas;
    }
  }
  CHECK(commas == 0);
  // Inside a data group no run is longer than four: that is what the D.x.A7 rule is for.
  for (unsigned v = 0; v < 256; ++v)
    for (Disparity rd : {kNeg, kPos}) {
      const CodeGroup10 g = encode_8b10b(data_symbol(static_cast<std::uint8_t>(v)), rd);
      int run = 0, longest = 0, last = -1;
      for (int b = 9; b >= 0; --b) {
        const int bit = (g >> b) & 1;
        run = bit == last ? run + 1 : 1;
        last = bit;
        longest = std::max(longest, run);
      }
      INFO("D" << (v & 31) << "." << (v >> 5));
      CHECK(longest <= 4);
    }
  for (const Symbol8b10b k : {sym8b10b::kK28_1, sym8b10b::kK28_5, sym8b10b::kK28_7})
    for (Disparity rd : {kNeg, kPos}) {
      const unsigned top7 = encode_8b10b(k, rd) >> 3;
      CHECK((top7 == 0b0011111 || top7 == 0b1100000));
    }
}

TEST_CASE("8b/10b a valid group at the wrong running disparity is a disparity error", "[phy][8b10b]") {
  Decoder8b10b dec;  // RD-
  // K28.5 sent as if at RD+ while the line is at RD-.
  Decoded8b10b d = dec.decode(encode_8b10b(sym8b10b::kCom, kPos));
  CHECK(d.status == Decode8b10bStatus::kDisparityError);
  CHECK(d.symbol == sym8b10b::kCom);
  CHECK(dec.disparity_errors() == 1);
  // The receiver follows the received bits: 110000 0101 left the line at RD-.
  CHECK(dec.running_disparity() == kNeg);

  // A stream where the transmitter repeats an unbalanced group's RD- form.
  Decoder8b10b dec2;
  CHECK(dec2.decode(encode_8b10b(d_symbol(0, 1), kNeg)).ok());  // 100111 1001: leaves RD+
  CHECK(dec2.running_disparity() == kPos);
  d = dec2.decode(encode_8b10b(d_symbol(0, 1), kNeg));
  CHECK(d.status == Decode8b10bStatus::kDisparityError);
  CHECK(d.symbol == d_symbol(0, 1));
  CHECK(dec2.code_violations() == 0);

  // Balanced groups that are the same at both disparities never raise it.
  Decoder8b10b dec3(kPos);
  CHECK(dec3.decode(encode_8b10b(d_symbol(21, 5), kNeg)).ok());
  // A code violation is counted as such and the decoder keeps tracking disparity.
  CHECK(dec3.decode(cg("111111 0000")).status == Decode8b10bStatus::kCodeViolation);
  CHECK(dec3.code_violations() == 1);
}
