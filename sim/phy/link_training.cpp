#include "sim/phy/link_training.h"

#include <fmt/format.h>

#include <algorithm>

namespace ibfsim {

namespace {

constexpr std::uint8_t kTs1FillerByte = kTs1Filler.value;  // 0x4A
constexpr std::uint8_t kTs2FillerByte = kTs2Filler.value;  // 0x45

// Widths by lane count, widest first, with their PortInfo LinkWidth bit.
struct WidthBit {
  unsigned lanes;
  std::uint8_t bit;
};
constexpr WidthBit kWidthsWidestFirst[] = {{12, 8}, {8, 4}, {4, 2}, {2, 16}, {1, 1}};
constexpr LinkSpeed kSpeedsFastestFirst[] = {LinkSpeed::kXdr, LinkSpeed::kNdr, LinkSpeed::kHdr, LinkSpeed::kEdr, LinkSpeed::kFdr,
                                             LinkSpeed::kFdr10, LinkSpeed::kQdr, LinkSpeed::kDdr, LinkSpeed::kSdr};

std::uint16_t speed_mask(LinkSpeed s) { return static_cast<std::uint16_t>(1u << static_cast<unsigned>(s)); }

unsigned widest(std::uint8_t widths) {
  for (const auto& w : kWidthsWidestFirst)
    if (widths & w.bit) return w.lanes;
  return 0;
}

}  // namespace

TrainingSet8b10b make_training_set_8b10b(TrainingSetKind kind, unsigned lane_id) {
  TrainingSet8b10b ts;
  ts.fill(kind == TrainingSetKind::kTs1 ? kTs1Filler : kTs2Filler);
  ts[0] = sym8b10b::kCom;
  ts[1] = data_symbol(static_cast<std::uint8_t>(lane_id));
  return ts;
}

std::optional<TrainingSetInfo> parse_training_set_8b10b(const TrainingSet8b10b& s) {
  if (s[0] != sym8b10b::kCom || s[1].control) return std::nullopt;
  const Symbol8b10b filler = s[2];
  if (filler != kTs1Filler && filler != kTs2Filler) return std::nullopt;
  for (unsigned i = 3; i < kTrainingSetSymbols; ++i)
    if (s[i] != filler) return std::nullopt;
  return TrainingSetInfo{filler == kTs1Filler ? TrainingSetKind::kTs1 : TrainingSetKind::kTs2, s[1].value};
}

Block66 make_training_block(TrainingSetKind kind, unsigned lane_id) {
  Block66 b{kSyncControl, 0};
  b.set_byte(0, block_type::kTraining);
  b.set_byte(1, static_cast<std::uint8_t>(kind));
  b.set_byte(2, static_cast<std::uint8_t>(lane_id));
  const std::uint8_t filler = kind == TrainingSetKind::kTs1 ? kTs1FillerByte : kTs2FillerByte;
  for (unsigned i = 3; i < kBlockBytes; ++i) b.set_byte(i, filler);
  return b;
}

std::optional<TrainingSetInfo> parse_training_block(const Block66& b) {
  if (b.sync != kSyncControl || b.type() != block_type::kTraining) return std::nullopt;
  const std::uint8_t n = b.byte(1);
  if (n != 1 && n != 2) return std::nullopt;
  const std::uint8_t filler = n == 1 ? kTs1FillerByte : kTs2FillerByte;
  for (unsigned i = 3; i < kBlockBytes; ++i)
    if (b.byte(i) != filler) return std::nullopt;
  return TrainingSetInfo{static_cast<TrainingSetKind>(n), b.byte(2)};
}

std::optional<bool> lanes_reversed(const std::vector<unsigned>& ids) {
  const std::size_t w = ids.size();
  if (w == 0) return std::nullopt;
  bool normal = true;
  bool reversed = true;
  for (std::size_t p = 0; p < w; ++p) {
    normal &= ids[p] == p;
    reversed &= ids[p] == w - 1 - p;
  }
  if (normal) return false;  // (a 1x link is both: call it normal)
  if (reversed) return true;
  return std::nullopt;
}

TrainingResult train_link(const PortLinkCaps& a, const PortLinkCaps& b, const LaneChannel& channel,
                          const TrainingModel& model) {
  TrainingResult r;
  r.lane_reversed = channel.reversed;
  const std::uint64_t phase_sets = std::uint64_t{model.ts1_per_phase} + model.ts2_per_phase;
  // The SDR phase runs whatever comes of it: that is how a port finds out.
  r.sdr_edges = phase_sets * training_set_edges(LineCode::k8b10b);

  const std::uint16_t speeds = a.speeds & b.speeds;
  std::optional<LinkSpeed> speed;
  for (LinkSpeed s : kSpeedsFastestFirst)
    if (speeds & speed_mask(s)) {
      speed = s;
      break;
    }
  const std::uint8_t widths = a.widths & b.widths;
  // Lanes the cable has: the narrower port's widest width (a 12x port on a 4x port uses 4).
  const unsigned cable_lanes = std::min(widest(a.widths), widest(b.widths));
  unsigned lanes = 0;
  bool degraded = false;
  for (const auto& w : kWidthsWidestFirst) {
    if (!(widths & w.bit) || w.lanes > cable_lanes) continue;
    const std::uint16_t used = static_cast<std::uint16_t>((1u << w.lanes) - 1);
    if (channel.failed_lanes & used) {
      degraded = true;  // both ends wanted this width, but a lane of it is dead
      continue;
    }
    lanes = w.lanes;
    break;
  }

  if (!speed) {
    r.reason = "the ports enable no common speed";
  } else if (widths == 0) {
    r.reason = "the ports enable no common width";
  } else if (lanes == 0) {
    r.reason = "no enabled width has all its lanes working (lane 0 is dead)";
  } else {
    r.up = true;
    r.speed = *speed;
    r.lanes = lanes;
    if (degraded) r.reason = fmt::format("dead lanes (mask {:#x}): trained {}x", channel.failed_lanes, lanes);
  }
  if (degraded) r.sdr_edges += std::uint64_t{model.ts1_per_phase} * training_set_edges(LineCode::k8b10b);
  if (r.up && r.speed != LinkSpeed::kSdr)
    r.speed_edges = phase_sets * training_set_edges(link_speed_info(r.speed).line_code);

  r.duration = training_done_at(r, 0);
  return r;
}

Time training_done_at(const TrainingResult& r, Time start) {
  const SymbolClock sdr = LinkRate{LinkSpeed::kSdr, 1}.clock();
  const Time sdr_end = sdr.time_of(sdr.cycle_at_or_after(start) + r.sdr_edges);
  if (r.speed_edges == 0) return sdr_end;
  const SymbolClock final_clock = r.rate().clock();
  return final_clock.time_of(final_clock.cycle_at_or_after(sdr_end) + r.speed_edges);
}

}  // namespace ibfsim
