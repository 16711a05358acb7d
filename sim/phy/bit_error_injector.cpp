#include "sim/phy/bit_error_injector.h"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace ibfsim {

BitErrorInjector::BitErrorInjector(double bit_error_rate, RngStream rng) : ber_(bit_error_rate), rng_(rng) {
  if (!(ber_ >= 0.0 && ber_ <= 1.0)) throw std::invalid_argument("bit error rate must be in [0, 1]");
  if (ber_ > 0.0) gap_ = draw_gap();
}

// Clean bits before the next error: P(gap = k) = (1 - p)^k p, by inversion:
// k = floor(ln(1 - U) / ln(1 - p)) with U uniform in [0, 1).
std::uint64_t BitErrorInjector::draw_gap() {
  if (ber_ >= 1.0) return 0;
  const double k = std::floor(std::log1p(-rng_.uniform()) / std::log1p(-ber_));
  constexpr double kMax = 1.8e19;  // below 2^64; a gap this long never ends in a run anyway
  return k >= kMax ? std::numeric_limits<std::uint64_t>::max() : static_cast<std::uint64_t>(k);
}

template <class Flip>
void BitErrorInjector::run(unsigned nbits, Flip flip) {
  bits_seen_ += nbits;
  if (ber_ == 0.0) return;
  unsigned pos = 0;
  while (gap_ < nbits - pos) {
    pos += static_cast<unsigned>(gap_);
    flip(pos);
    ++bits_flipped_;
    ++pos;
    gap_ = draw_gap();
  }
  gap_ -= nbits - pos;
}

namespace {
void flip(CodeGroup10& g, unsigned i) { g = static_cast<CodeGroup10>(g ^ (1u << (kCodeGroupBits - 1 - i))); }
void flip(Block66& b, unsigned i) {
  if (i < 2) b.sync = static_cast<std::uint8_t>(b.sync ^ (i == 0 ? 0b10 : 0b01));
  else b.payload ^= std::uint64_t{1} << (i - 2);
}
}  // namespace

void BitErrorInjector::corrupt(CodeGroup10& g) {
  run(kCodeGroupBits, [&](unsigned i) { flip(g, i); });
}

void BitErrorInjector::corrupt(Block66& b) {
  run(kBlockBits, [&](unsigned i) { flip(b, i); });
}

void BitErrorInjector::force(CodeGroup10& g, unsigned i) {
  if (i >= kCodeGroupBits) throw std::invalid_argument("a code group has 10 bits");
  flip(g, i);
  ++bits_flipped_;
}

void BitErrorInjector::force(Block66& b, unsigned i) {
  if (i >= kBlockBits) throw std::invalid_argument("a block has 66 bits");
  flip(b, i);
  ++bits_flipped_;
}

}  // namespace ibfsim
