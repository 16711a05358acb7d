// Link training: the TS1/TS2 ordered sets, and the negotiation that decides what a link comes up
// as (IBA Vol 2).
//
// Training sets. On 8b/10b a TS1 or TS2 is 16 symbols on every lane at once: COM, the lane's
// identifier as a data symbol (so the receiver learns the lane order and sees a reversal), then 14
// filler symbols, D10.2 for TS1 and D5.2 for TS2. On 64b/66b it is one training control block per
// lane: type, TS number (1 or 2), lane id, then five filler bytes with the same D10.2 / D5.2 byte
// values (0x4A / 0x45). The 64b/66b layout is a PROJECT STAND-IN (see block_64b66b.h).
//
// Negotiation. The link comes up at the best speed both ends enable and the widest width both
// ends enable whose lanes all work: a 4x EDR HCA on a 4x HDR switch port comes up 4x EDR; a 12x
// port on a 4x port comes up 4x; a 4x link with a dead lane comes up 2x where both ends enable 2x,
// else 1x. Lanes are numbered from one end (end A's transmit lanes); a width w uses lanes
// 0..w-1, so a dead lane 0 leaves no link. A reversed cable is found from the lane ids and
// undone by the receiver, and does not change the width.
//
// Training time (the project's model; IBA Vol 2 has the real state machine and timeouts):
//   - Every IB port trains at SDR first (Polling -> Configuration): kTs1 TS1 then kTs2 TS2 on all
//     lanes, 16 SDR edges each.
//   - If some lanes did not come up (so the link trains narrower than both ends enable), the
//     ports first wait one more full TS1 phase for them before configuring without them.
//   - If the chosen speed is above SDR, the link retrains at that speed (speed change): kTs1 TS1
//     then kTs2 TS2 again, each training_set_edges() edges of the new speed.
// With 256 TS1 and 16 TS2 that is 4,352 SDR edges (17.4 us) plus 272 sets at the final speed.
// Each phase starts on an edge of its own clock (all symbol clocks have an edge at time 0), so the
// link comes up on an edge of its final clock: training_done_at() below.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/phy/block_64b66b.h"
#include "sim/phy/code_8b10b.h"
#include "sim/phy/link_speed.h"

namespace ibfsim {

enum class TrainingSetKind : std::uint8_t { kTs1 = 1, kTs2 = 2 };

// What a lane's training set says.
struct TrainingSetInfo {
  TrainingSetKind kind = TrainingSetKind::kTs1;
  unsigned lane_id = 0;
};

constexpr unsigned kTrainingSetSymbols = 16;
constexpr Symbol8b10b kTs1Filler = d_symbol(10, 2);
constexpr Symbol8b10b kTs2Filler = d_symbol(5, 2);

using TrainingSet8b10b = std::array<Symbol8b10b, kTrainingSetSymbols>;

TrainingSet8b10b make_training_set_8b10b(TrainingSetKind kind, unsigned lane_id);
// nullopt unless `symbols` is COM, a data lane id and 14 identical TS1 or TS2 fillers.
std::optional<TrainingSetInfo> parse_training_set_8b10b(const TrainingSet8b10b& symbols);

Block66 make_training_block(TrainingSetKind kind, unsigned lane_id);
std::optional<TrainingSetInfo> parse_training_block(const Block66& b);

// Edges one training set takes on a lane.
constexpr unsigned training_set_edges(LineCode c) { return c == LineCode::k8b10b ? kTrainingSetSymbols : 1; }

// From the lane ids received on physical lanes 0..w-1: false if lane p got id p, true if it got
// w-1-p (reversed), nullopt if neither (a miswired or broken link).
std::optional<bool> lanes_reversed(const std::vector<unsigned>& lane_id_per_physical_lane);

// What one port enables, in PortInfo's encodings: speeds as SpeedSet (bit static_cast<int>(LinkSpeed)),
// widths as WidthSet (1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x), like sim/fabric/topology.h.
struct PortLinkCaps {
  std::uint16_t speeds = 0x1FF;
  std::uint8_t widths = 0x1F;
};

// The cable between the two ports.
struct LaneChannel {
  std::uint16_t failed_lanes = 0;  // bit i: lane i (end A's numbering) carries nothing
  bool reversed = false;           // lane i at one end meets lane w-1-i at the other
};

// Counts of the training-time model (see the top of this file).
struct TrainingModel {
  unsigned ts1_per_phase = 256;
  unsigned ts2_per_phase = 16;
};

struct TrainingResult {
  bool up = false;                    // false: no common speed or width, or lane 0 dead
  LinkSpeed speed = LinkSpeed::kSdr;
  unsigned lanes = 0;
  bool lane_reversed = false;
  std::uint64_t sdr_edges = 0;        // edges of the SDR phase, on the SDR symbol clock
  std::uint64_t speed_edges = 0;      // edges of the speed-change phase on the final clock (0 at SDR)
  Time duration = 0;                  // both phases, exact: training_done_at(*this, 0)
  std::string reason;                 // why the link is down, or why it came up degraded

  LinkRate rate() const { return LinkRate{speed, lanes}; }
};

TrainingResult train_link(const PortLinkCaps& a, const PortLinkCaps& b, const LaneChannel& channel = {},
                          const TrainingModel& model = {});

// When a training that begins at `start` is over and the link is up: the SDR phase starts at the
// first SDR edge at or after `start`, the speed-change phase at the first edge of the final clock
// after the SDR phase. Meaningless when !r.up.
Time training_done_at(const TrainingResult& r, Time start);

}  // namespace ibfsim
