#include "sim/phy/lane_striping.h"

#include <utility>

#include "sim/core/error.h"

namespace ibfsim {

namespace {

template <class Unit>
unsigned width_of(const LaneStreams<Unit>& lanes) {
  IBFSIM_CHECK(!lanes.empty(), "a link has at least one lane");
  return static_cast<unsigned>(lanes.size());
}

template <class Unit>
void append_each(LaneStreams<Unit>& lanes, std::uint64_t edges, const Unit& u) {
  for (auto& lane : lanes) lane.insert(lane.end(), edges, u);
}

}  // namespace

// ---- 8b/10b ----

void stripe_packet(LaneStreams<Symbol8b10b>& lanes, const std::uint8_t* bytes, std::size_t size, FrameKind kind,
                   FrameEnd end) {
  const unsigned w = width_of(lanes);
  const std::size_t slots = size + 2;
  const std::size_t edges = (slots + w - 1) / w;
  const Symbol8b10b start_sym = kind == FrameKind::kData ? sym8b10b::kSdp : sym8b10b::kSlp;
  const Symbol8b10b end_sym = end == FrameEnd::kGood ? sym8b10b::kEgp : sym8b10b::kEbp;
  for (auto& lane : lanes) lane.reserve(lane.size() + edges);
  for (std::size_t k = 0; k < edges * w; ++k) {
    Symbol8b10b s = sym8b10b::kPad;
    if (k == 0) s = start_sym;
    else if (k <= size) s = data_symbol(bytes[k - 1]);
    else if (k == size + 1) s = end_sym;
    lanes[k % w].push_back(s);
  }
}

void stripe_idle(LaneStreams<Symbol8b10b>& lanes, std::uint64_t edges) {
  width_of(lanes);
  append_each(lanes, edges, sym8b10b::kIdle);
}

void stripe_skip(LaneStreams<Symbol8b10b>& lanes) {
  width_of(lanes);
  append_each(lanes, 1, sym8b10b::kCom);
  append_each(lanes, kSkipEdges8b10b - 1, sym8b10b::kSkp);
}

// ---- 64b/66b ----

void stripe_packet(LaneStreams<Block66>& lanes, const std::uint8_t* bytes, std::size_t size, FrameKind kind,
                   FrameEnd end) {
  const unsigned w = width_of(lanes);
  const std::size_t slots = size + 2;
  const std::size_t blocks = (slots + kBlockBytes - 1) / kBlockBytes;
  const std::size_t edges = (blocks + w - 1) / w;
  for (auto& lane : lanes) lane.reserve(lane.size() + edges);
  for (std::size_t j = 0; j < edges * w; ++j) {
    Block66 b;
    if (j >= blocks) {
      b = make_idle_block();
    } else if (blocks == 1) {
      b = make_start_end_block(kind, end, bytes, static_cast<unsigned>(size));
    } else if (j == 0) {
      b = make_start_block(kind, bytes);
    } else if (j + 1 < blocks) {
      b = make_data_block(bytes + kBlockBytes * j - 1);  // slot 8j holds byte 8j - 1
    } else {
      const auto carried = static_cast<unsigned>(size + 1 - kBlockBytes * j);  // end slot's offset
      b = make_end_block(end, bytes + kBlockBytes * j - 1, carried);
    }
    lanes[j % w].push_back(b);
  }
}

void stripe_idle(LaneStreams<Block66>& lanes, std::uint64_t edges) {
  width_of(lanes);
  append_each(lanes, edges, make_idle_block());
}

void stripe_skip(LaneStreams<Block66>& lanes) {
  width_of(lanes);
  for (unsigned i = 0; i < lanes.size(); ++i) lanes[i].push_back(make_skip_block(i));
}

// ---- Receive: 8b/10b ----

void FrameAssembler::start(FrameKind kind, unsigned lane, std::uint64_t edge) {
  cur_ = PhyRxFrame{};
  cur_.kind = kind;
  cur_.start_edge = edge;
  in_frame_ = true;
  if (lane != 0) {
    cur_.framing_error = true;  // packets start on lane 0
    ++counters_.framing_errors;
  }
}

void FrameAssembler::finish(FrameEnd end, std::uint64_t edge) {
  cur_.end = end;
  cur_.end_edge = edge + 1;
  ++counters_.frames;
  if (!cur_.ok()) ++counters_.bad_frames;
  done_.push_back(std::move(cur_));
  in_frame_ = false;
}

void FrameAssembler::abort(std::uint64_t edge) {
  cur_.framing_error = true;
  ++counters_.framing_errors;
  finish(FrameEnd::kBad, edge);
}

std::vector<PhyRxFrame> FrameAssembler::take_frames() { return std::exchange(done_, {}); }

void Deframer8b10b::push_row(const std::vector<Decoded8b10b>& row, std::uint64_t edge) {
  IBFSIM_CHECK(row.size() == lanes_, "a row has one unit per lane");
  for (unsigned i = 0; i < lanes_; ++i) {
    const Decoded8b10b& d = row[i];
    if (!d.valid()) {
      // The symbol is lost. Inside a packet it most likely was a byte; if it was the end
      // delimiter, the packet runs on into the next control symbol and is flagged there.
      if (in_frame_) {
        cur_.symbol_error = true;
        cur_.bytes.push_back(0);
      }
      continue;
    }
    const bool disparity_error = d.status == Decode8b10bStatus::kDisparityError;
    const Symbol8b10b s = d.symbol;
    if (!s.control) {
      if (in_frame_) {
        cur_.bytes.push_back(s.value);
        cur_.symbol_error |= disparity_error;
      }
      continue;  // outside a packet: idle, or the body of an ordered set
    }
    if (s == sym8b10b::kSdp || s == sym8b10b::kSlp) {
      if (in_frame_) abort(edge);  // the previous packet never ended
      start(s == sym8b10b::kSdp ? FrameKind::kData : FrameKind::kLink, i, edge);
      cur_.symbol_error |= disparity_error;
    } else if (s == sym8b10b::kEgp || s == sym8b10b::kEbp) {
      if (in_frame_) {
        cur_.symbol_error |= disparity_error;
        finish(s == sym8b10b::kEgp ? FrameEnd::kGood : FrameEnd::kBad, edge);
      } else {
        ++counters_.framing_errors;  // an end with no start
      }
    } else if (in_frame_) {
      abort(edge);  // PAD, COM, SKP or another control symbol inside a packet
    }
  }
}


// ---- Receive: 64b/66b ----

void Deframer64b66b::push_row(const std::vector<Block66>& row, std::uint64_t edge) {
  IBFSIM_CHECK(row.size() == lanes_, "a row has one unit per lane");
  for (unsigned i = 0; i < lanes_; ++i) {
    const Block66& b = row[i];
    const ParsedBlock p = parse_block(b);
    auto append = [&] {
      for (unsigned k = 0; k < p.byte_count; ++k) cur_.bytes.push_back(b.byte(p.first_byte + k));
    };
    switch (p.kind) {
      case BlockKind::kBadSync:
        ++counters_.sync_header_errors;
        if (in_frame_) {
          // Most blocks inside a packet are data blocks: keep its 8 bytes as the best guess.
          cur_.symbol_error = true;
          for (unsigned k = 0; k < kBlockBytes; ++k) cur_.bytes.push_back(b.byte(k));
        }
        break;
      case BlockKind::kBadType:
        ++counters_.block_type_errors;
        if (in_frame_) cur_.symbol_error = true;
        break;
      case BlockKind::kData:
        if (in_frame_) append();
        else ++counters_.framing_errors;  // data with no start
        break;
      case BlockKind::kIdle:
      case BlockKind::kSkip:
      case BlockKind::kTraining:
        if (in_frame_) abort(edge);
        break;
      case BlockKind::kStart:
        if (in_frame_) abort(edge);
        start(p.frame_kind, i, edge);
        append();
        break;
      case BlockKind::kEnd:
        if (in_frame_) {
          append();
          finish(p.frame_end, edge);
        } else {
          ++counters_.framing_errors;
        }
        break;
      case BlockKind::kStartEnd:
        if (in_frame_) abort(edge);
        start(p.frame_kind, i, edge);
        append();
        finish(p.frame_end, edge);
        break;
    }
  }
}


}  // namespace ibfsim
