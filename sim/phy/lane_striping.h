// Striping packets across the lanes of a link, and taking them back off at the receiver.
//
// The transmitter works on code units before line coding: 8b/10b symbols (one byte slot per lane
// per edge) or 64b/66b blocks before scrambling (eight byte slots per lane per edge). A packet of
// B bytes is B + 2 byte slots (start delimiter, bytes, end delimiter) and:
//
//   8b/10b   slot k goes to lane k mod w, edge k / w: SDP/SLP on lane 0, then the bytes in turn,
//            EGP/EBP, and PAD on the lanes after the end delimiter in its edge.
//   64b/66b  slots are cut into blocks of 8 (block_64b66b.h: start block, data blocks, end block
//            or one start-end block); block j goes to lane j mod w, edge j / w. Lanes after the
//            end block in its edge carry idle blocks. So slot k lands in lane (k / 8) mod w.
//
// Either way a packet starts on lane 0 at an edge boundary and takes exactly
// ceil((B + 2) / (w * bytes per lane unit)) edges on every lane: symbols_for_packet() of
// serialization.h, which is what makes the bit-exact PHY and the timing model agree.
//
// Between packets the lanes carry idle units and, at a configured interval, a SKIP ordered set
// on every lane at the same edge: COM SKP SKP SKP (4 edges) on 8b/10b, one SKIP block carrying the
// lane id (1 edge) on 64b/66b. An ordered set is never put inside a packet. Its first unit (COM, or
// the SKIP block) is also what the receiver aligns its lanes on (lane_deskew.h).
//
// The receiver side (the deframers) reads rows that are already aligned and in logical lane order,
// one row per edge, and rebuilds the frames, flagging what does not follow these rules.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/phy/block_64b66b.h"
#include "sim/phy/code_8b10b.h"
#include "sim/phy/phy_frame.h"
#include "sim/phy/skip_schedule.h"

namespace ibfsim {

// Per-lane code-unit streams of one link direction: lanes[i][e] is the unit on logical lane i at
// edge e. All lanes always have the same length.
template <class Unit>
using LaneStreams = std::vector<std::vector<Unit>>;

// ---- Transmit: 8b/10b ----
// Appends one packet to every lane: ceil((size + 2) / lanes) edges.
void stripe_packet(LaneStreams<Symbol8b10b>& lanes, const std::uint8_t* bytes, std::size_t size, FrameKind kind,
                   FrameEnd end);
// Appends `edges` edges of idle symbols.
void stripe_idle(LaneStreams<Symbol8b10b>& lanes, std::uint64_t edges);
// Appends one SKIP ordered set (kSkipEdges8b10b edges; when: skip_schedule.h).
void stripe_skip(LaneStreams<Symbol8b10b>& lanes);

// ---- Transmit: 64b/66b (unscrambled blocks) ----
void stripe_packet(LaneStreams<Block66>& lanes, const std::uint8_t* bytes, std::size_t size, FrameKind kind,
                   FrameEnd end);
void stripe_idle(LaneStreams<Block66>& lanes, std::uint64_t edges);
void stripe_skip(LaneStreams<Block66>& lanes);  // kSkipEdges64b66b edge, lane id in each block

// ---- Receive ----

// What both deframers share: the frame being assembled, the finished ones, and the counts.
class FrameAssembler {
 public:
  // The frames completed so far (and forgets them).
  std::vector<PhyRxFrame> take_frames();
  // framing_errors, frames, bad_frames (and, for 64b/66b, sync header and block type errors).
  const PhyRxCounters& counters() const { return counters_; }
  bool in_frame() const { return in_frame_; }

 protected:
  // A start delimiter on `lane` at `edge` (packets start on lane 0, else a framing error).
  void start(FrameKind kind, unsigned lane, std::uint64_t edge);
  void finish(FrameEnd end, std::uint64_t edge);
  // The frame ends on a framing error.
  void abort(std::uint64_t edge);

  bool in_frame_ = false;
  PhyRxFrame cur_;
  std::vector<PhyRxFrame> done_;
  PhyRxCounters counters_;
};

// Rebuilds frames from aligned 8b/10b rows (decoded symbols, logical lane order).
// It counts framing errors and frames; code violations and disparity errors are counted by the
// lane decoders (code_8b10b.h), here they only mark the frame they fall in.
class Deframer8b10b : public FrameAssembler {
 public:
  explicit Deframer8b10b(unsigned lanes) : lanes_(lanes) {}

  // One row: row[i] for logical lane i, whose units start at `edge`.
  void push_row(const std::vector<Decoded8b10b>& row, std::uint64_t edge);

 private:
  unsigned lanes_;
};

// Rebuilds frames from aligned 64b/66b rows (descrambled blocks, logical lane order).
// It counts framing errors, sync header and block type errors, and frames.
class Deframer64b66b : public FrameAssembler {
 public:
  explicit Deframer64b66b(unsigned lanes) : lanes_(lanes) {}

  void push_row(const std::vector<Block66>& row, std::uint64_t edge);

 private:
  unsigned lanes_;
};

}  // namespace ibfsim
