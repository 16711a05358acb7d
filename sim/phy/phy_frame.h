// What the physical layer carries for the link layer, and what its receiver hands back.
//
// A frame is one link-layer packet between a start delimiter and an end delimiter: a data packet
// (SDP ... EGP/EBP) or a link (flow-control) packet (SLP ... EGP/EBP). The PHY does not look
// inside the bytes; checking VCRC/ICRC/LPCRC is the link layer's job, so a bit error that turns
// one valid code unit into another reaches the link layer as wrong bytes in a frame marked ok.
#pragma once
#include <cstdint>
#include <vector>

namespace ibfsim {

// Which start delimiter a frame has.
enum class FrameKind : std::uint8_t { kData, kLink };
// Which end delimiter: good, or bad (EBP: the transmitter knew the packet was broken, e.g. a
// cut-through switch whose input failed its CRC, and "stomped" it).
enum class FrameEnd : std::uint8_t { kGood, kBad };

// One frame as the receiver decoded it.
struct PhyRxFrame {
  FrameKind kind = FrameKind::kData;
  FrameEnd end = FrameEnd::kGood;
  std::vector<std::uint8_t> bytes;
  // A code unit inside the frame failed to decode (8b/10b code violation or disparity error,
  // 64b/66b invalid sync header or unknown control block type): the bytes are not to be trusted.
  bool symbol_error = false;
  // The frame broke the framing rules: a control symbol or block that may not appear inside a
  // packet (which also ends it), a start delimiter not on lane 0.
  bool framing_error = false;
  // Symbol-clock edges on which its first code unit starts, and right after its last code unit
  // (when it has been fully received): end_edge - start_edge is the packet's length in edges,
  // symbols_for_packet() when nothing went wrong. The caller chooses the edge numbering (see the
  // deframers in lane_striping.h).
  std::uint64_t start_edge = 0;
  std::uint64_t end_edge = 0;

  // Delivered to the link layer as a good packet.
  bool ok() const { return end == FrameEnd::kGood && !symbol_error && !framing_error; }
};

// Receiver error counters of one port (in the spirit of PortCounters' SymbolErrorCounter,
// LinkErrorRecoveryCounter and PortRcvErrors).
struct PhyRxCounters {
  std::uint64_t code_violations = 0;    // 8b/10b groups that are no code group
  std::uint64_t disparity_errors = 0;   // 8b/10b groups valid only for the other disparity
  std::uint64_t sync_header_errors = 0; // 64b/66b blocks with sync header 00 or 11
  std::uint64_t block_type_errors = 0;  // 64b/66b control blocks of no known type
  std::uint64_t framing_errors = 0;     // framing rule broken, inside or outside a frame
  std::uint64_t alignment_errors = 0;   // lanes found out of step at an alignment marker
  std::uint64_t frames = 0;             // frames handed back, good or not
  std::uint64_t bad_frames = 0;         // of which not ok()

  PhyRxCounters& operator+=(const PhyRxCounters& o) {
    code_violations += o.code_violations;
    disparity_errors += o.disparity_errors;
    sync_header_errors += o.sync_header_errors;
    block_type_errors += o.block_type_errors;
    framing_errors += o.framing_errors;
    alignment_errors += o.alignment_errors;
    frames += o.frames;
    bad_frames += o.bad_frames;
    return *this;
  }

  // Everything PortInfo would count as a symbol error.
  std::uint64_t symbol_errors() const {
    return code_violations + disparity_errors + sync_header_errors + block_type_errors;
  }
};

}  // namespace ibfsim
