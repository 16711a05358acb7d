// 64b/66b blocks (IB FDR10/FDR/EDR, and the block layer under HDR/NDR's FEC; IBA Vol 2 Rel 1.3, ch. 5) and
// the IB packet framing on them.
//
// A block is a 2-bit sync header and a 64-bit payload. Sync 01 = 8 data bytes, 10 = a control
// block whose first payload byte is a block type; 00 and 11 never occur on a good line (they are
// how a receiver finds block boundaries, and a symbol error when seen after lock).
//
// Bit order: the sync header is held as a 2-bit number whose MSB is the first bit on the wire, so
// it reads like the standard's "01" / "10". The payload holds byte i in bits 8i..8i+7 and bit 0
// goes first (IEEE 802.3 clause 49). On the wire a block is sync MSB, sync LSB, payload bits
// 0..63; the payload is scrambled (scrambler_64b66b.h), the sync header is not.
//
// Framing. A packet of B bytes is a start delimiter, its bytes and an end delimiter: B + 2 byte
// slots, striped 8 to a block (lane_striping.h), so it takes ceil((B + 2) / 8) blocks, exactly as
// the timing model counts it (serialization.h). The start delimiter is the type byte of a start
// block (7 packet bytes follow); the end delimiter is the type byte of an end block, which encodes
// how many packet bytes (0..7) it still carries (they follow the type byte, the rest is zero, as
// 802.3's /T/ blocks). A packet that fits in one block (B <= 6: the 6-byte link packet) uses a
// start-end block. Blocks of the packet's last block time on lanes after its end are idle blocks.
//
// *** The block type codes below are the PROJECT'S STAND-INS. IBA Vol 2 (Rel 1.3, ch. 5) defines
// *** IB's own codes for these blocks; it was not at hand. Replace the values (and the layouts of
// *** the SKIP and training blocks) with the spec's when it is. Nothing else depends on them.
#pragma once
#include <cstdint>

#include "sim/phy/phy_frame.h"

namespace ibfsim {

constexpr std::uint8_t kSyncData = 0b01;
constexpr std::uint8_t kSyncControl = 0b10;
constexpr unsigned kBlockBits = 66;
constexpr unsigned kBlockBytes = 8;

// One 66-bit block.
struct Block66 {
  std::uint8_t sync = kSyncControl;
  std::uint64_t payload = 0;

  std::uint8_t byte(unsigned i) const { return static_cast<std::uint8_t>(payload >> (8 * i)); }
  void set_byte(unsigned i, std::uint8_t v) {
    payload = (payload & ~(std::uint64_t{0xFF} << (8 * i))) | (std::uint64_t{v} << (8 * i));
  }
  // The type byte of a control block.
  std::uint8_t type() const { return byte(0); }
  friend bool operator==(const Block66& a, const Block66& b) { return a.sync == b.sync && a.payload == b.payload; }
  friend bool operator!=(const Block66& a, const Block66& b) { return !(a == b); }
};

// Control block types: PROJECT STAND-INS (see the note at the top).
namespace block_type {
constexpr std::uint8_t kIdle = 0x1E;       // nothing to send; bytes 1..7 zero
constexpr std::uint8_t kSkip = 0x2D;       // SKIP ordered set, also the lane alignment marker; byte 1 = lane id
constexpr std::uint8_t kTraining = 0x4B;   // TS1/TS2; layout in link_training.h
constexpr std::uint8_t kStartData = 0x78;  // SDP + packet bytes 0..6
constexpr std::uint8_t kStartLink = 0x33;  // SLP + packet bytes 0..6
// End of packet: kEnd | bad << 3 | n, n = 0..7 packet bytes in bytes 1..n (EGP / EBP).
constexpr std::uint8_t kEnd = 0x80;
// Whole packet in one block: kStartEnd | link << 4 | bad << 3 | n, n = 0..6 bytes in bytes 1..n.
constexpr std::uint8_t kStartEnd = 0xA0;
}  // namespace block_type

// What a block is, for the receiver.
enum class BlockKind : std::uint8_t {
  kData,      // 8 packet bytes
  kIdle,
  kSkip,
  kTraining,
  kStart,     // start delimiter and 7 packet bytes
  kEnd,       // 0..7 packet bytes and the end delimiter
  kStartEnd,  // a whole packet of 0..6 bytes
  kBadSync,   // sync header 00 or 11
  kBadType,   // control block of no known type
};

// A block taken apart.
struct ParsedBlock {
  BlockKind kind = BlockKind::kIdle;
  FrameKind frame_kind = FrameKind::kData;  // kStart, kStartEnd
  FrameEnd frame_end = FrameEnd::kGood;     // kEnd, kStartEnd
  unsigned first_byte = 0;                  // packet bytes are payload bytes first_byte ..
  unsigned byte_count = 0;                  // .. first_byte + byte_count - 1
};

ParsedBlock parse_block(const Block66& b);

// Builders. `bytes` points at the packet bytes the block carries (8, 7 or n).
Block66 make_data_block(const std::uint8_t* bytes);
Block66 make_idle_block();
Block66 make_skip_block(unsigned lane_id);
Block66 make_start_block(FrameKind kind, const std::uint8_t* bytes);
Block66 make_end_block(FrameEnd end, const std::uint8_t* bytes, unsigned n);  // n <= 7
Block66 make_start_end_block(FrameKind kind, FrameEnd end, const std::uint8_t* bytes, unsigned n);  // n <= 6

// True for the blocks that start an ordered set on every lane at once (SKIP, training): the
// receiver aligns its lanes on them.
bool is_alignment_block(const Block66& b);

}  // namespace ibfsim
