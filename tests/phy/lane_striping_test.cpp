#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/rng.h"
#include "sim/phy/lane_deskew.h"
#include "sim/phy/lane_striping.h"
#include "sim/phy/serialization.h"

using namespace ibfsim;

namespace {
const LinkSpeed kAllSpeedsList[] = {LinkSpeed::kSdr, LinkSpeed::kDdr, LinkSpeed::kQdr, LinkSpeed::kFdr10,
                                    LinkSpeed::kFdr, LinkSpeed::kEdr, LinkSpeed::kHdr, LinkSpeed::kNdr};
const unsigned kWidths[] = {1, 2, 4, 8, 12};

std::vector<std::uint8_t> bytes_of(std::size_t n, std::uint8_t seed = 0) {
  std::vector<std::uint8_t> b(n);
  for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(seed + i * 7);
  return b;
}

template <class Unit>
std::size_t appended_edges(unsigned width, std::size_t size) {
  LaneStreams<Unit> lanes(width);
  stripe_idle(lanes, 3);  // the packet is appended after what is already there
  const auto b = bytes_of(size);
  stripe_packet(lanes, b.data(), b.size(), FrameKind::kData, FrameEnd::kGood);
  for (const auto& lane : lanes) REQUIRE(lane.size() == lanes[0].size());
  return lanes[0].size() - 3;
}
}  // namespace

TEST_CASE("a striped packet takes symbols_for_packet() code units on every lane at every speed and width",
          "[phy][striping]") {
  std::vector<std::size_t> sizes;
  for (std::size_t b = 0; b <= 300; ++b) sizes.push_back(b);
  for (std::size_t b : {510, 1024, 2082, 2086, 4126, 4222}) sizes.push_back(b);
  for (LinkSpeed speed : kAllSpeedsList)
    for (unsigned w : kWidths) {
      const LinkRate rate{speed, w};
      for (std::size_t b : sizes) {
        const std::size_t edges = rate.info().line_code == LineCode::k8b10b ? appended_edges<Symbol8b10b>(w, b)
                                                                            : appended_edges<Block66>(w, b);
        INFO(rate.name() << " bytes " << b);
        REQUIRE(edges == symbols_for_packet(rate, b));
      }
    }
}

TEST_CASE("8b/10b striping puts symbol k of SDP, bytes, EGP on lane k mod width and pads the last edge",
          "[phy][striping]") {
  using namespace sym8b10b;
  LaneStreams<Symbol8b10b> lanes(4);
  const std::vector<std::uint8_t> fc = {0x10, 0x21, 0x32, 0x43, 0x54, 0x65};  // a 6-byte link packet
  stripe_packet(lanes, fc.data(), fc.size(), FrameKind::kLink, FrameEnd::kGood);
  REQUIRE(lanes[0].size() == 2);
  CHECK(lanes[0][0] == kSlp);
  CHECK(lanes[1][0] == data_symbol(0x10));
  CHECK(lanes[3][0] == data_symbol(0x32));
  CHECK(lanes[0][1] == data_symbol(0x43));
  CHECK(lanes[2][1] == data_symbol(0x65));
  CHECK(lanes[3][1] == kEgp);

  LaneStreams<Symbol8b10b> wide(12);
  const auto data = bytes_of(294);  // 296 slots: 25 edges, the last with 4 PADs
  stripe_packet(wide, data.data(), data.size(), FrameKind::kData, FrameEnd::kBad);
  REQUIRE(wide[0].size() == 25);
  CHECK(wide[0][0] == kSdp);
  CHECK(wide[295 % 12][24] == kEbp);
  for (unsigned lane = 296 % 12; lane < 12; ++lane) CHECK(wide[lane][24] == kPad);
  for (std::size_t k = 1; k <= 294; ++k) REQUIRE(wide[k % 12][k / 12] == data_symbol(data[k - 1]));
}

TEST_CASE("64b/66b striping puts byte slot k in the block of lane (k / 8) mod width", "[phy][striping]") {
  LaneStreams<Block66> lanes(4);
  const auto data = bytes_of(30);  // 32 slots: exactly one block per lane
  stripe_packet(lanes, data.data(), data.size(), FrameKind::kData, FrameEnd::kGood);
  REQUIRE(lanes[0].size() == 1);
  CHECK(lanes[0][0].type() == block_type::kStartData);
  CHECK(lanes[0][0].byte(1) == data[0]);
  CHECK(lanes[1][0].sync == kSyncData);
  CHECK(lanes[1][0].byte(0) == data[7]);  // slot 8 holds byte 7
  CHECK(lanes[2][0].byte(7) == data[22]);
  const ParsedBlock end = parse_block(lanes[3][0]);
  CHECK(end.kind == BlockKind::kEnd);
  CHECK(end.byte_count == 7);  // bytes 23..29, then the end delimiter in slot 31
  CHECK(lanes[3][0].byte(1) == data[23]);

  // 31 bytes: 33 slots, the end block alone in the next edge on lane 0; lanes 1..3 idle.
  LaneStreams<Block66> more(4);
  const auto d31 = bytes_of(31);
  stripe_packet(more, d31.data(), d31.size(), FrameKind::kData, FrameEnd::kGood);
  REQUIRE(more[0].size() == 2);
  CHECK(parse_block(more[0][1]).kind == BlockKind::kEnd);
  CHECK(parse_block(more[0][1]).byte_count == 0);
  for (unsigned lane = 1; lane < 4; ++lane) CHECK(parse_block(more[lane][1]).kind == BlockKind::kIdle);

  // The 6-byte link packet fits one start-end block.
  LaneStreams<Block66> one(1);
  const auto fc = bytes_of(6);
  stripe_packet(one, fc.data(), fc.size(), FrameKind::kLink, FrameEnd::kGood);
  REQUIRE(one[0].size() == 1);
  CHECK(parse_block(one[0][0]).kind == BlockKind::kStartEnd);
}

TEST_CASE("SKIP ordered sets are COM and three SKP per lane, or one SKIP block per lane", "[phy][striping]") {
  LaneStreams<Symbol8b10b> s(4);
  stripe_skip(s);
  for (const auto& lane : s) {
    REQUIRE(lane.size() == kSkipEdges8b10b);
    CHECK(lane[0] == sym8b10b::kCom);
    for (unsigned k = 1; k < 4; ++k) CHECK(lane[k] == sym8b10b::kSkp);
  }
  LaneStreams<Block66> b(4);
  stripe_skip(b);
  for (unsigned i = 0; i < 4; ++i) {
    REQUIRE(b[i].size() == kSkipEdges64b66b);
    CHECK(parse_block(b[i][0]).kind == BlockKind::kSkip);
    CHECK(b[i][0].byte(1) == i);
  }
  SkipScheduler never(0);
  CHECK_FALSE(never.due(1'000'000));
  SkipScheduler sched(100);
  CHECK_FALSE(sched.due(99));
  CHECK(sched.due(100));
  sched.sent();  // sent at 130, say, after a packet: the schedule does not move
  CHECK(sched.next_due() == 200);
}

TEST_CASE("8b/10b deframer rebuilds frames from aligned rows and flags framing errors", "[phy][striping]") {
  LaneStreams<Symbol8b10b> lanes(4);
  const auto a = bytes_of(26, 1);
  const auto b = bytes_of(6, 2);
  stripe_idle(lanes, 2);
  stripe_packet(lanes, a.data(), a.size(), FrameKind::kData, FrameEnd::kGood);
  stripe_skip(lanes);
  stripe_packet(lanes, b.data(), b.size(), FrameKind::kLink, FrameEnd::kBad);
  // A packet cut short by a SKIP (as if its end had been lost).
  lanes[0].push_back(sym8b10b::kSdp);
  for (unsigned i = 1; i < 4; ++i) lanes[i].push_back(data_symbol(9));
  stripe_skip(lanes);
  Deframer8b10b rx(4);
  for (std::size_t e = 0; e < lanes[0].size(); ++e) {
    std::vector<Decoded8b10b> row;
    for (const auto& lane : lanes) row.push_back({lane[e], Decode8b10bStatus::kOk});
    rx.push_row(row, 100 + e);
  }
  const auto frames = rx.take_frames();
  REQUIRE(frames.size() == 3);
  CHECK(frames[0].ok());
  CHECK(frames[0].kind == FrameKind::kData);
  CHECK(frames[0].bytes == a);
  CHECK(frames[0].start_edge == 102);
  CHECK(frames[0].end_edge == 102 + 7);  // 28 slots on 4 lanes
  CHECK(frames[1].kind == FrameKind::kLink);
  CHECK(frames[1].end == FrameEnd::kBad);
  CHECK(frames[1].bytes == b);
  CHECK_FALSE(frames[1].framing_error);
  CHECK(frames[2].framing_error);
  CHECK(rx.counters().framing_errors == 1);
  CHECK(rx.counters().frames == 3);
  CHECK(rx.counters().bad_frames == 2);
}

namespace {
struct IsNegative {
  bool operator()(int u) const { return u < 0; }
};
}  // namespace

TEST_CASE("lane deskew realigns skewed lanes on markers and undoes lane reversal", "[phy][deskew]") {
  // Each lane sends the same sequence: marker -1 then 1, 2, 3, ...; lane p's copy carries p * 1000
  // so the rows show which lane each unit came from.
  RngStream rng(11, 12);
  for (unsigned w : kWidths)
    for (bool reversed : {false, true}) {
      const std::size_t tol = 8;
      LaneDeskewer<int, IsNegative> d(w, reversed, tol);
      std::vector<unsigned> skew(w);
      unsigned max_skew = 0;
      for (auto& s : skew) max_skew = std::max(max_skew, s = static_cast<unsigned>(rng.below(tol + 1)));
      for (unsigned p = 0; p < w; ++p) {
        for (unsigned k = 0; k < skew[p]; ++k) d.push(p, 0);  // idle before the marker
        const int tx_lane = static_cast<int>(reversed ? w - 1 - p : p);
        d.push(p, -1);
        for (int n = 1; n <= 50; ++n) d.push(p, tx_lane * 1000 + n);
      }
      REQUIRE(d.aligned());
      std::vector<int> row;
      std::uint64_t arrival = 0;
      REQUIRE(d.pop(row, &arrival));
      CHECK(arrival == max_skew);  // the marker row is complete when the latest lane shows it
      for (int n = 1; n <= 50; ++n) {
        REQUIRE(d.pop(row, &arrival));
        CHECK(arrival == max_skew + static_cast<unsigned>(n));
        for (unsigned i = 0; i < w; ++i) REQUIRE(row[i] == static_cast<int>(i) * 1000 + n);
      }
      CHECK_FALSE(d.pop(row));
      CHECK(d.alignment_errors() == 0);
    }
}

TEST_CASE("lane deskew counts lanes out of step and realigns on the next markers", "[phy][deskew]") {
  LaneDeskewer<int, IsNegative> d(2, false, 4);
  // Lane 1 slips one unit between the first and second marker.
  const std::vector<int> lane0 = {-1, 1, 2, 3, -1, 5, 6, -1, 8, 9};
  const std::vector<int> lane1 = {-1, 1, 2, 3, 4, -1, 6, 7, -1, 9, 10};
  for (int u : lane0) d.push(0, u);
  for (int u : lane1) d.push(1, u);
  std::vector<int> row;
  std::vector<std::vector<int>> rows;
  while (d.pop(row)) rows.push_back(row);
  CHECK(d.alignment_errors() == 1);
  REQUIRE(rows.size() >= 6);
  CHECK(rows[3] == std::vector<int>{3, 3});
  CHECK(rows[4] == std::vector<int>{-1, -1});  // realigned: lane 1's marker after its extra unit
  CHECK(rows[5] == std::vector<int>{5, 6});
  // A marker no other lane can match within the tolerance is given up.
  LaneDeskewer<int, IsNegative> e(2, false, 2);
  e.push(0, -1);
  for (int k = 0; k < 5; ++k) e.push(1, 0);  // lane 1 is 5 units further with no marker
  CHECK_FALSE(e.aligned());
  for (int k = 1; k < 5; ++k) e.push(0, 7);  // lane 0 catches up (units 1..4)
  e.push(0, -1);                             // both lanes' unit 5 is a marker
  e.push(1, -1);
  CHECK(e.aligned());
  e.push(0, 43);
  e.push(1, 42);
  REQUIRE(e.pop(row));
  CHECK(row == std::vector<int>{-1, -1});
  REQUIRE(e.pop(row));
  CHECK(row == std::vector<int>{43, 42});  // not lane 0's stale marker and the 7s after it
}
