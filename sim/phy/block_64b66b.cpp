#include "sim/phy/block_64b66b.h"

#include "sim/core/error.h"

namespace ibfsim {

namespace {
Block66 control_block(std::uint8_t type, const std::uint8_t* bytes, unsigned n) {
  Block66 b{kSyncControl, 0};
  b.set_byte(0, type);
  for (unsigned i = 0; i < n; ++i) b.set_byte(1 + i, bytes[i]);
  return b;
}
}  // namespace

ParsedBlock parse_block(const Block66& b) {
  ParsedBlock p;
  if (b.sync == kSyncData) {
    p.kind = BlockKind::kData;
    p.byte_count = kBlockBytes;
    return p;
  }
  if (b.sync != kSyncControl) {
    p.kind = BlockKind::kBadSync;
    return p;
  }
  const std::uint8_t t = b.type();
  p.first_byte = 1;
  switch (t) {
    case block_type::kIdle: p.kind = BlockKind::kIdle; return p;
    case block_type::kSkip: p.kind = BlockKind::kSkip; return p;
    case block_type::kTraining: p.kind = BlockKind::kTraining; return p;
    case block_type::kStartData:
    case block_type::kStartLink:
      p.kind = BlockKind::kStart;
      p.frame_kind = t == block_type::kStartData ? FrameKind::kData : FrameKind::kLink;
      p.byte_count = kBlockBytes - 1;
      return p;
    default: break;
  }
  if ((t & 0xF0) == block_type::kEnd) {
    p.kind = BlockKind::kEnd;
    p.frame_end = (t & 0x08) ? FrameEnd::kBad : FrameEnd::kGood;
    p.byte_count = t & 0x07u;
    return p;
  }
  if ((t & 0xE0) == block_type::kStartEnd && (t & 0x07u) <= 6) {
    p.kind = BlockKind::kStartEnd;
    p.frame_kind = (t & 0x10) ? FrameKind::kLink : FrameKind::kData;
    p.frame_end = (t & 0x08) ? FrameEnd::kBad : FrameEnd::kGood;
    p.byte_count = t & 0x07u;
    return p;
  }
  p.kind = BlockKind::kBadType;
  p.first_byte = 0;
  return p;
}

Block66 make_data_block(const std::uint8_t* bytes) {
  Block66 b{kSyncData, 0};
  for (unsigned i = 0; i < kBlockBytes; ++i) b.set_byte(i, bytes[i]);
  return b;
}

Block66 make_idle_block() { return control_block(block_type::kIdle, nullptr, 0); }

Block66 make_skip_block(unsigned lane_id) {
  const auto id = static_cast<std::uint8_t>(lane_id);
  return control_block(block_type::kSkip, &id, 1);
}

Block66 make_start_block(FrameKind kind, const std::uint8_t* bytes) {
  return control_block(kind == FrameKind::kData ? block_type::kStartData : block_type::kStartLink, bytes,
                       kBlockBytes - 1);
}

Block66 make_end_block(FrameEnd end, const std::uint8_t* bytes, unsigned n) {
  IBFSIM_CHECK(n <= 7, "an end block carries at most 7 packet bytes");
  const auto type = static_cast<std::uint8_t>(block_type::kEnd | (end == FrameEnd::kBad ? 0x08 : 0) | n);
  return control_block(type, bytes, n);
}

Block66 make_start_end_block(FrameKind kind, FrameEnd end, const std::uint8_t* bytes, unsigned n) {
  IBFSIM_CHECK(n <= 6, "a start-end block carries at most 6 packet bytes");
  const auto type = static_cast<std::uint8_t>(block_type::kStartEnd | (kind == FrameKind::kLink ? 0x10 : 0) |
                                              (end == FrameEnd::kBad ? 0x08 : 0) | n);
  return control_block(type, bytes, n);
}

bool is_alignment_block(const Block66& b) {
  return b.sync == kSyncControl && (b.type() == block_type::kSkip || b.type() == block_type::kTraining);
}

}  // namespace ibfsim
