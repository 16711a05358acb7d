// The bit-exact PHY receiver (sim/phy): per lane 8b/10b decoding or 64b/66b descrambling, lane
// deskew and deframing, on any line content, as a receiver meets it on a noisy or hostile line.
//
// Input: byte 0 picks the line code (bit 0), the width (1, 2, 4, 8 or 12 lanes) and lane
// reversal; then units round-robin over the physical lanes: 8b/10b, two bytes per 10-bit code
// group; 64b/66b, nine bytes per block (2-bit sync header, 64-bit payload).
//
// A second part checks the whole link against itself: packets taken from the input, sent through
// a BitExactLink with no bit errors, come back byte for byte and marked ok.
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "sim/phy/bit_exact_link.h"
#include "sim/phy/block_64b66b.h"
#include "sim/phy/code_8b10b.h"
#include "sim/phy/lane_deskew.h"
#include "sim/phy/lane_striping.h"
#include "sim/phy/scrambler_64b66b.h"

using namespace ibfsim;

namespace {

struct Marker8b10b {
  bool operator()(const Decoded8b10b& u) const { return u.valid() && u.symbol == sym8b10b::kCom; }
};
struct Marker64b66b {
  bool operator()(const Block66& b) const { return is_alignment_block(b); }
};

constexpr unsigned kWidths[] = {1, 2, 4, 8, 12};

void receive_8b10b(unsigned w, bool reversed, const std::uint8_t* d, std::size_t n) {
  std::vector<Decoder8b10b> rx(w);
  LaneDeskewer<Decoded8b10b, Marker8b10b> deskew(w, reversed, 32);
  Deframer8b10b deframer(w);
  std::vector<Decoded8b10b> row;
  std::uint64_t arrival = 0;
  for (std::size_t i = 0; i + 1 < n; i += 2) {
    const unsigned lane = static_cast<unsigned>((i / 2) % w);
    const CodeGroup10 g = static_cast<CodeGroup10>((d[i] | (d[i + 1] << 8)) & 0x3FF);
    deskew.push(lane, rx[lane].decode(g));
    while (deskew.pop(row, &arrival)) deframer.push_row(row, arrival);
  }
  for (const PhyRxFrame& f : deframer.take_frames()) (void)f.ok();
}

void receive_64b66b(unsigned w, bool reversed, const std::uint8_t* d, std::size_t n) {
  std::vector<Descrambler64b66b> rx(w);
  LaneDeskewer<Block66, Marker64b66b> deskew(w, reversed, 32);
  Deframer64b66b deframer(w);
  std::vector<Block66> row;
  std::uint64_t arrival = 0;
  for (std::size_t i = 0; i + 8 < n; i += 9) {
    const unsigned lane = static_cast<unsigned>((i / 9) % w);
    std::uint64_t payload = 0;
    std::memcpy(&payload, d + i + 1, 8);
    deskew.push(lane, Block66{static_cast<std::uint8_t>(d[i] & 3), rx[lane].descramble(payload)});
    while (deskew.pop(row, &arrival)) deframer.push_row(row, arrival);
  }
  for (const PhyRxFrame& f : deframer.take_frames()) (void)f.ok();
}

// Packets from the input (a length byte, then that many bytes) through an error-free link.
void round_trip(std::uint8_t control, const std::uint8_t* d, std::size_t n) {
  static const LinkSpeed kSpeeds[] = {LinkSpeed::kSdr, LinkSpeed::kQdr, LinkSpeed::kFdr, LinkSpeed::kEdr,
                                      LinkSpeed::kHdr};
  BitExactLinkConfig c;
  c.rate.speed = kSpeeds[(control >> 4) % 5];
  c.rate.lanes = kWidths[(control >> 1) % 5];
  c.lanes_reversed = control & 0x80;
  BitExactLink link(c);
  std::vector<std::vector<std::uint8_t>> sent;
  for (std::size_t i = 0; i < n;) {
    const std::size_t len = std::min<std::size_t>(1 + d[i], n - i - 1);
    if (len == 0 || i + 1 + len > n) break;
    sent.emplace_back(d + i + 1, d + i + 1 + len);
    link.send(sent.back(), (d[i] & 1) ? FrameKind::kLink : FrameKind::kData);
    i += 1 + len;
  }
  const std::vector<PhyRxFrame> got = link.take_frames();
  if (got.size() != sent.size()) {
    std::fprintf(stderr, "sent %zu frames, received %zu\n", sent.size(), got.size());
    std::abort();
  }
  for (std::size_t k = 0; k < got.size(); ++k)
    if (!got[k].ok() || got[k].bytes != sent[k]) {
      std::fprintf(stderr, "frame %zu came back changed or marked bad\n", k);
      std::abort();
    }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::uint8_t control = data[0];
  const unsigned w = kWidths[(control >> 1) % 5];
  const bool reversed = control & 0x10;
  if (control & 0x40) {
    round_trip(data[1], data + 2, size - 2);
  } else if (control & 1) {
    receive_64b66b(w, reversed, data + 1, size - 1);
  } else {
    receive_8b10b(w, reversed, data + 1, size - 1);
  }
  return 0;
}
