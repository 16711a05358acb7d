#include <catch2/catch.hpp>

#include <tuple>
#include <vector>

#include "sim/core/rng.h"
#include "sim/phy/bit_exact_link.h"
#include "sim/phy/serialization.h"

using namespace ibfsim;

namespace {
const LinkSpeed kSpeeds[] = {LinkSpeed::kSdr, LinkSpeed::kDdr, LinkSpeed::kQdr, LinkSpeed::kFdr10,
                             LinkSpeed::kFdr, LinkSpeed::kEdr, LinkSpeed::kHdr, LinkSpeed::kNdr};
const unsigned kWidths[] = {1, 2, 4, 8, 12};

struct Sent {
  std::vector<std::uint8_t> bytes;
  FrameKind kind;
  FrameEnd end;
  std::uint64_t start;
};

// Random traffic: 6-byte link packets and 4n+2-byte data packets, some back to back, some after
// a gap; every tenth data packet ends bad (stomped).
std::vector<Sent> drive(BitExactLink& link, RngStream& rng, int packets) {
  std::vector<Sent> sent;
  for (int n = 0; n < packets; ++n) {
    Sent s;
    const bool fc = rng.below(4) == 0;
    s.kind = fc ? FrameKind::kLink : FrameKind::kData;
    const std::size_t size = fc ? 6 : 4 * (6 + rng.below(n % 7 == 0 ? 1050 : 70)) + 2;
    s.bytes.resize(size);
    for (auto& b : s.bytes) b = static_cast<std::uint8_t>(rng.below(256));
    s.end = !fc && n % 10 == 9 ? FrameEnd::kBad : FrameEnd::kGood;
    const std::uint64_t earliest = rng.below(2) ? link.next_free_edge() : link.next_free_edge() + rng.below(300);
    s.start = link.send(s.bytes, s.kind, s.end, earliest);
    REQUIRE(s.start >= earliest);
    sent.push_back(std::move(s));
  }
  link.idle_until(link.next_free_edge() + 64);
  return sent;
}
}  // namespace

TEST_CASE("bit-exact link round trips frames at every speed and width with lane skew and reversal",
          "[phy][bit_exact]") {
  RngStream rng(2024, 1);
  for (LinkSpeed speed : kSpeeds)
    for (unsigned w : kWidths)
      for (bool reversed : {false, true}) {
        BitExactLinkConfig cfg;
        cfg.rate = LinkRate{speed, w};
        cfg.lanes_reversed = reversed;
        cfg.lane_skew.resize(w);
        for (auto& s : cfg.lane_skew) s = static_cast<unsigned>(rng.below(9));
        cfg.skip_interval_edges = 200;
        BitExactLink link(cfg);
        const auto sent = drive(link, rng, 25);
        const auto frames = link.take_frames();
        INFO(cfg.rate.name() << (reversed ? " reversed" : ""));
        REQUIRE(frames.size() == sent.size());
        for (std::size_t i = 0; i < sent.size(); ++i) {
          CHECK(frames[i].bytes == sent[i].bytes);
          CHECK(frames[i].kind == sent[i].kind);
          CHECK(frames[i].end == sent[i].end);
          CHECK_FALSE(frames[i].symbol_error);
          CHECK_FALSE(frames[i].framing_error);
          CHECK(frames[i].start_edge == sent[i].start + link.skew_latency_edges());
          CHECK(frames[i].end_edge - frames[i].start_edge == symbols_for_packet(cfg.rate, sent[i].bytes.size()));
        }
        const PhyRxCounters c = link.rx_counters();
        CHECK(c.symbol_errors() == 0);
        CHECK(c.framing_errors == 0);
        CHECK(c.alignment_errors == 0);
        CHECK(link.skips_sent() > 0);
      }
}

TEST_CASE("bit-exact and timing modes give the same arrival edges for error-free traffic", "[phy][bit_exact]") {
  // Back-to-back packets with no skew and no SKIPs: packet i starts where packet i-1 ended and is
  // fully received symbols_for_packet() edges later, which is LinkPort's tail edge (before
  // propagation).
  for (LinkSpeed speed : kSpeeds)
    for (unsigned w : kWidths) {
      BitExactLinkConfig cfg;
      cfg.rate = LinkRate{speed, w};
      BitExactLink link(cfg);
      std::uint64_t timing_edge = 0;
      std::vector<std::uint64_t> expected_end;
      for (std::size_t size : {6, 26, 30, 58, 6, 282, 2082, 4126, 6, 6}) {
        const std::vector<std::uint8_t> bytes(size, 0xA5);
        const FrameKind kind = size == 6 ? FrameKind::kLink : FrameKind::kData;
        REQUIRE(link.send(bytes, kind) == timing_edge);
        timing_edge += symbols_for_packet(cfg.rate, size);
        expected_end.push_back(timing_edge);
      }
      const auto frames = link.take_frames();
      REQUIRE(frames.size() == expected_end.size());
      for (std::size_t i = 0; i < frames.size(); ++i) {
        CHECK(frames[i].ok());
        CHECK(frames[i].end_edge == expected_end[i]);
      }
    }
}

TEST_CASE("bit errors on a bit-exact link are reproducible for a seed and reported by the receiver",
          "[phy][bit_exact][ber]") {
  for (LinkSpeed speed : {LinkSpeed::kQdr, LinkSpeed::kEdr}) {
    auto run = [&](std::uint64_t seed, std::vector<Sent>& sent) {
      BitExactLinkConfig cfg;
      cfg.rate = LinkRate{speed, 4};
      cfg.bit_error_rate = 2e-5;
      cfg.seed = seed;
      cfg.stream_id = 77;
      cfg.skip_interval_edges = 500;
      cfg.lane_skew = {1, 0, 3, 2};
      BitExactLink link(cfg);
      RngStream traffic(1, 2);  // the same traffic every run
      sent = drive(link, traffic, 300);
      return std::make_tuple(link.take_frames(), link.rx_counters(), link.bits_flipped());
    };
    std::vector<Sent> sent;
    const auto [frames, counters, flipped] = run(5, sent);
    std::vector<Sent> sent2;
    const auto [frames2, counters2, flipped2] = run(5, sent2);
    INFO(link_speed_info(speed).name);
    REQUIRE(frames.size() == frames2.size());
    for (std::size_t i = 0; i < frames.size(); ++i) {
      CHECK(frames[i].bytes == frames2[i].bytes);
      CHECK(frames[i].ok() == frames2[i].ok());
      CHECK(frames[i].end_edge == frames2[i].end_edge);
    }
    CHECK(counters.symbol_errors() == counters2.symbol_errors());
    CHECK(flipped == flipped2);

    std::vector<Sent> sent3;
    const auto [frames3, counters3, flipped3] = run(6, sent3);
    CHECK((flipped3 != flipped || counters3.symbol_errors() != counters.symbol_errors() ||
           counters3.bad_frames != counters.bad_frames));

    // Errors happened and the receiver saw them. On 8b/10b most hit a frame's symbols and mark
    // it; on 64b/66b most land in scrambled payload, which only the link layer's CRC catches, and
    // the PHY sees those that hit sync headers or control block types.
    CHECK(flipped > 0);
    CHECK(counters.symbol_errors() > 0);
    std::size_t marked = 0;  // flagged by the PHY (an EBP end is the sender's doing, not counted)
    for (const auto& f : frames) marked += (f.symbol_error || f.framing_error) ? 1 : 0;
    if (speed == LinkSpeed::kQdr) {
      CHECK(marked > 0);
      CHECK(counters.code_violations + counters.disparity_errors > 0);
    }
    // Every frame the PHY passed as good is either intact or caught later by the link layer's CRC;
    // the count of intact good frames stays close to what was sent.
    std::size_t intact = 0;
    for (const auto& f : frames)
      for (const auto& s : sent)
        if (f.ok() && f.bytes == s.bytes) {
          ++intact;
          break;
        }
    CHECK(intact > sent.size() / 2);
  }
}

TEST_CASE("forced bit errors land on the chosen lane, edge and bit: a payload bit gives wrong bytes, a sync "
          "header bit a symbol error",
          "[phy][bit_exact]") {
  // 4x EDR, one 98-byte data packet at edge 10: 100 slots = 13 blocks, 4 edges (10-13).
  BitExactLinkConfig cfg;
  cfg.rate = LinkRate{LinkSpeed::kEdr, 4};
  cfg.forced_errors = {{2, 11, 4}};  // lane 2, edge 11: block 6, a data block; payload bit 2
  std::vector<std::uint8_t> bytes(98);
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<std::uint8_t>(i * 7);
  BitExactLink link(cfg);
  CHECK(link.send(bytes, FrameKind::kData, FrameEnd::kGood, 10) == 10);
  auto frames = link.take_frames();
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].ok());  // no code violation: the bytes are wrong
  CHECK(link.bits_flipped() == 1);
  REQUIRE(frames[0].bytes.size() == bytes.size());
  // Block 6 holds slots 48-55, bytes 47-54; the descrambler spreads payload bit 2 to bits 2, 41
  // and 60 of the block: bytes 0, 5 and 7 of it.
  std::vector<std::size_t> wrong;
  for (std::size_t i = 0; i < bytes.size(); ++i)
    if (frames[0].bytes[i] != bytes[i]) wrong.push_back(i);
  CHECK(wrong == std::vector<std::size_t>{47, 52, 54});

  cfg.forced_errors = {{0, 11, 0}};  // lane 0, edge 11: the sync header of block 4
  BitExactLink sync(cfg);
  sync.send(bytes, FrameKind::kData, FrameEnd::kGood, 10);
  frames = sync.take_frames();
  REQUIRE(frames.size() == 1);
  CHECK(frames[0].symbol_error);
  CHECK(sync.rx_counters().sync_header_errors == 1);
}
