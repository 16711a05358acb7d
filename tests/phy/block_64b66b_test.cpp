#include <catch2/catch.hpp>

#include <vector>

#include "sim/phy/block_64b66b.h"
#include "sim/phy/lane_striping.h"

using namespace ibfsim;

TEST_CASE("64b/66b blocks carry their type and bytes in the documented places", "[phy][64b66b]") {
  const std::uint8_t bytes[8] = {1, 2, 3, 4, 5, 6, 7, 8};
  const Block66 d = make_data_block(bytes);
  CHECK(d.sync == kSyncData);
  CHECK(d.payload == 0x0807060504030201ull);  // byte 0 in bits 0..7: first on the wire
  ParsedBlock p = parse_block(d);
  CHECK(p.kind == BlockKind::kData);
  CHECK(p.first_byte == 0);
  CHECK(p.byte_count == 8);

  const Block66 s = make_start_block(FrameKind::kLink, bytes);
  CHECK(s.sync == kSyncControl);
  CHECK(s.type() == block_type::kStartLink);
  CHECK(s.byte(1) == 1);
  CHECK(s.byte(7) == 7);
  p = parse_block(s);
  CHECK(p.kind == BlockKind::kStart);
  CHECK(p.frame_kind == FrameKind::kLink);
  CHECK(p.byte_count == 7);

  for (unsigned n = 0; n <= 7; ++n)
    for (FrameEnd end : {FrameEnd::kGood, FrameEnd::kBad}) {
      p = parse_block(make_end_block(end, bytes, n));
      CHECK(p.kind == BlockKind::kEnd);
      CHECK(p.frame_end == end);
      CHECK(p.first_byte == 1);
      CHECK(p.byte_count == n);
    }
  for (unsigned n = 0; n <= 6; ++n)
    for (FrameKind kind : {FrameKind::kData, FrameKind::kLink})
      for (FrameEnd end : {FrameEnd::kGood, FrameEnd::kBad}) {
        p = parse_block(make_start_end_block(kind, end, bytes, n));
        CHECK(p.kind == BlockKind::kStartEnd);
        CHECK(p.frame_kind == kind);
        CHECK(p.frame_end == end);
        CHECK(p.byte_count == n);
      }
  CHECK(parse_block(make_idle_block()).kind == BlockKind::kIdle);
  CHECK(parse_block(make_skip_block(3)).kind == BlockKind::kSkip);
  CHECK(make_skip_block(3).byte(1) == 3);
  CHECK(is_alignment_block(make_skip_block(0)));
  CHECK_FALSE(is_alignment_block(make_idle_block()));
  CHECK_FALSE(is_alignment_block(d));
}

TEST_CASE("64b/66b invalid sync headers and unknown block types are detected", "[phy][64b66b]") {
  CHECK(parse_block(Block66{0b00, 0}).kind == BlockKind::kBadSync);
  CHECK(parse_block(Block66{0b11, 0}).kind == BlockKind::kBadSync);
  CHECK(parse_block(Block66{kSyncControl, 0x00}).kind == BlockKind::kBadType);
  CHECK(parse_block(Block66{kSyncControl, 0xA7}).kind == BlockKind::kBadType);  // start-end with 7 bytes
  // A control block whose type is a data byte's worth of garbage.
  CHECK(parse_block(Block66{kSyncControl, 0xFF}).kind == BlockKind::kBadType);

  // In a frame they mark it; outside they are counted.
  LaneStreams<Block66> lanes(1);
  std::vector<std::uint8_t> packet(40, 0x5A);
  stripe_packet(lanes, packet.data(), packet.size(), FrameKind::kData, FrameEnd::kGood);
  REQUIRE(lanes[0].size() == 6);  // 42 slots in blocks of 8
  for (std::uint8_t bad : {std::uint8_t{0b00}, std::uint8_t{0b11}}) {
    Deframer64b66b rx(1);
    rx.push_row({Block66{bad, 0}}, 0);  // before the packet
    for (std::size_t e = 0; e < lanes[0].size(); ++e) {
      Block66 b = lanes[0][e];
      if (e == 2) b.sync = bad;
      rx.push_row({b}, e + 1);
    }
    const auto frames = rx.take_frames();
    REQUIRE(frames.size() == 1);
    CHECK(frames[0].symbol_error);
    CHECK_FALSE(frames[0].ok());
    CHECK(frames[0].bytes.size() == packet.size());  // the bad block was kept as 8 bytes
    CHECK(rx.counters().sync_header_errors == 2);
    CHECK(rx.counters().bad_frames == 1);
  }
}
