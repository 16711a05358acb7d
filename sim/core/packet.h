// A packet as it crosses a link: real header bytes written by the codecs, a payload that is either
// carried (data checking on) or elided (then it stands for payload_len zero bytes: same length,
// same CRCs, no memory), zero pad, ICRC and VCRC. Wire order: header | payload | pad | ICRC | VCRC.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

// A run of bytes inside a frame; data == nullptr stands for `len` zero bytes.
struct ByteRun {
  const std::uint8_t* data = nullptr;
  std::size_t len = 0;
};

struct Packet {
  // LRH (8) + GRH (40) + BTH (12) + the longest extended-header chain (RDETH+DETH+AtomicETH = 40).
  static constexpr std::size_t kMaxHeaderBytes = 104;

  std::array<std::uint8_t, kMaxHeaderBytes> header{};
  std::uint16_t header_len = 0;   // LRH through the last extended header
  std::uint32_t payload_len = 0;  // bytes delivered to the consumer
  std::uint8_t pad_len = 0;       // 0-3 zero bytes after the payload (BTH.PadCnt)
  bool has_icrc = true;           // false for raw packets
  std::vector<std::uint8_t> payload;  // carried payload; empty = elided (zeros)
  std::array<std::uint8_t, 4> icrc{};  // as on the wire (least significant byte first)
  std::array<std::uint8_t, 2> vcrc{};  // as on the wire

  // Simulation bookkeeping, never on the wire.
  std::uint64_t id = 0;        // unique per run, in injection order
  Time created = 0;            // when the message was posted
  Time injected = 0;           // when its first symbol left the source HCA
  std::uint32_t src_node = 0;  // fabric node index of the source
  bool measured = false;       // created inside the measurement window
  std::uint32_t link_epoch = 0;  // epoch of the link it is crossing (a link that went down loses it)
  std::uint16_t flow = 0;        // workload flow index, for per-flow statistics
  // Set by whatever alters bytes after the VCRC was written without regenerating it (bit errors
  // on a link, injected faults). Switches verify the VCRC of such packets; destination HCAs verify
  // VCRC and ICRC of every packet. A link with no error source cannot corrupt a packet, so
  // checking untouched packets at every hop would only cost time.
  bool may_be_corrupted = false;
  // Bit-exact PHY: the bytes the receiver decoded, when they differ from what was sent (CRC checks
  // then run over these), and whether the receiver's PHY saw a symbol or framing error.
  std::vector<std::uint8_t> received_frame;
  bool phy_error = false;

  bool payload_carried() const { return !payload.empty() || payload_len == 0; }
  // Payload followed by pad, as one run (zeros when the payload is elided).
  ByteRun body_payload() const { return {payload.empty() ? nullptr : payload.data(), payload_len}; }
  ByteRun body_pad() const { return {nullptr, pad_len}; }
  // Bytes on the wire from the first LRH byte through the VCRC (delimiters excluded).
  std::size_t wire_bytes() const { return header_len + payload_len + pad_len + (has_icrc ? 4u : 0u) + 2u; }
  // LRH.PktLen in 4-byte words: everything except the VCRC.
  std::size_t pkt_len_words() const { return (wire_bytes() - 2) / 4; }
  // The whole frame LRH..VCRC, elided payload written as zeros.
  void write_frame(std::vector<std::uint8_t>& out) const;
};

// Recycles Packet objects so the hot path never allocates; counts live packets so that a run can
// check that every injected packet was delivered or dropped.
class PacketPool {
 public:
  PacketPool() = default;
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;
  ~PacketPool();

  Packet* acquire();  // a reset packet
  void release(Packet* p);
  std::size_t live() const { return live_; }

 private:
  std::vector<Packet*> free_;
  std::size_t live_ = 0;
};

}  // namespace ibfsim
