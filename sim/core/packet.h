// A packet as it crosses a link: real header bytes written by the codecs, a payload that is either
// carried (data checking on) or elided (then it stands for payload_len zero bytes: same length,
// same CRCs, no memory), zero pad, ICRC and the link's trailer. Two framings (Packet::framing):
//   InfiniBand:       LRH | [GRH] | BTH | ext. headers | payload | pad | ICRC | VCRC
//   Ethernet (RoCE v2): Ethernet | [802.1Q] | IPv4/IPv6 | UDP | BTH | ext. headers | payload | pad |
//                     ICRC | Ethernet pad (to 64 bytes) | FCS
// `header` holds everything before the payload in either case.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "sim/core/time.h"

namespace ibfsim {

// A run of bytes inside a frame; data == nullptr stands for `len` zero bytes.
struct ByteRun {
  const std::uint8_t* data = nullptr;
  std::size_t len = 0;
};

// How a packet is framed on its link: an InfiniBand packet (LRH .. VCRC) or an Ethernet frame
// carrying RoCE v2 (destination MAC .. FCS). The transport headers inside are the same.
enum class Framing : std::uint8_t { kInfiniBand, kEthernet };

struct alignas(64) Packet {
  // The longer of the two framings' headers: Ethernet (14) + 802.1Q tag (4) + IPv6 (40) + UDP (8)
  // + BTH (12) + the longest extended-header chain (RDETH+DETH+AtomicETH = 40) = 118, against
  // InfiniBand's LRH (8) + GRH (40) + BTH + 40 = 104. The struct stays four cache lines.
  static constexpr std::size_t kMaxHeaderBytes = 120;

  // The fields every hop reads come first, so that with the LRH they share the first cache line:
  // a packet crossing a switch is then one cache miss, not four.
  std::uint16_t header_len = 0;   // LRH through the last extended header
  std::uint8_t pad_len = 0;       // 0-3 zero bytes after the payload (BTH.PadCnt)
  bool has_icrc = true;           // false for raw packets
  std::uint32_t payload_len = 0;  // bytes delivered to the consumer
  // Set by the transmitter of the hop the packet is crossing (sim/link/link_port.h): its number
  // among the data packets that port sent, and whether, when it started, the transmitter could
  // still end it with EBP (a cut-through switch that had not yet checked the packet's tail).
  std::uint64_t link_seq = 0;
  std::uint32_t link_epoch = 0;  // epoch of the link it is crossing (a link that went down loses it)
  bool end_pending = false;
  // Set by the wire it is crossing (sim/link/wire.h): the receiver must check its tail, since the
  // line can corrupt it or its transmitter may still stomp it (end_pending).
  bool tail_check = false;
  // Set when its bytes differ from what the VCRC was written for (received_frame holds them).
  // Destination HCAs verify VCRC and ICRC of every packet; on the way, the link layer judges a
  // packet at its tail only where an error source exists (LinkPort::check_tail), since a link
  // with none cannot corrupt a packet and checking at every hop would only cost time.
  bool may_be_corrupted = false;
  std::array<std::uint8_t, 2> vcrc{};  // as on the wire
  std::array<std::uint8_t, kMaxHeaderBytes> header{};
  std::array<std::uint8_t, 4> icrc{};  // as on the wire (least significant byte first)
  std::array<std::uint8_t, 4> fcs{};   // Ethernet framing: the FCS as on the wire
  Framing framing = Framing::kInfiniBand;
  // Ethernet framing: zero bytes after the ICRC that bring a short frame to 64 bytes with its FCS.
  std::uint8_t eth_pad_len = 0;
  std::vector<std::uint8_t> payload;  // carried payload; empty = elided (zeros)

  // Simulation bookkeeping, never on the wire.
  std::uint64_t id = 0;        // unique per run, in injection order
  Time created = 0;            // when the message was posted
  Time injected = 0;           // when its first symbol left the source HCA
  std::uint32_t src_node = 0;  // fabric node index of the source
  bool measured = false;       // created inside the measurement window
  std::uint16_t flow = 0;        // workload flow index, for per-flow statistics
  // The bytes a receiver decoded when a bit-exact PHY changed them and the VCRC still matched
  // (CRC checks then run over these; the link layer attaches them, see LinkPort::check_tail).
  std::vector<std::uint8_t> received_frame;
  // The local QP that built it (0: none, e.g. a CNP): its sender's congestion control throttles
  // per QP. Set by whoever fills the packet; in the struct's tail padding, so it costs no space.
  std::uint32_t src_qp = 0;
  // A management packet: an SMP (QP0, VL15) or a GMP (QP1). Set by the transport's builders of
  // management packets (smp_packet.h, gmp_packet.h); the packet ledger counts them apart.
  bool management = false;

  bool payload_carried() const { return !payload.empty() || payload_len == 0; }
  // Payload followed by pad, as one run (zeros when the payload is elided).
  ByteRun body_payload() const { return {payload.empty() ? nullptr : payload.data(), payload_len}; }
  ByteRun body_pad() const { return {nullptr, pad_len}; }
  bool ethernet() const { return framing == Framing::kEthernet; }
  // Bytes on the wire from the first LRH byte through the VCRC (delimiters excluded), or of an
  // Ethernet frame from the destination MAC through the FCS (preamble and gap excluded).
  std::size_t wire_bytes() const {
    return header_len + payload_len + pad_len + (has_icrc ? 4u : 0u) + trailer_bytes();
  }
  // VCRC, or Ethernet pad and FCS.
  std::size_t trailer_bytes() const { return framing == Framing::kInfiniBand ? 2u : eth_pad_len + 4u; }
  // LRH.PktLen in 4-byte words: everything except the VCRC.
  std::size_t pkt_len_words() const { return (wire_bytes() - 2) / 4; }
  // The whole frame LRH..VCRC (or destination MAC..FCS), elided payload written as zeros.
  void write_frame(std::vector<std::uint8_t>& out) const;
};

// Four cache lines whichever the framing (the pool's footprint, the hot path's misses).
static_assert(sizeof(Packet) == 256, "Packet outgrew four cache lines");

// Whether the packet ledger counts it as management traffic (an SMP or a GMP), as its builder said.
inline bool counts_as_management(const Packet& p) { return p.management; }

// Recycles Packet objects so the hot path never allocates; counts live packets so that a run can
// check that every injected packet was delivered or dropped. It owns every packet it made: those
// still queued or on a wire when a run ends are freed with it.
//
// Partitions (docs/architecture.md, "Partitions"): once told how many a run has, it keeps a free
// list and a live count per partition (partition_slot.h), so that partitions running on threads of
// their own never touch the same list. A packet made in one partition and freed in another joins
// the second's list; balance(), at barriers, moves free packets from lists that grew to those that
// ran low, so that no list grows without bound. Which packet object a partition gets never shows
// in a result.
class PacketPool {
 public:
  PacketPool() : slots_(1) {}
  PacketPool(const PacketPool&) = delete;
  PacketPool& operator=(const PacketPool&) = delete;

  Packet* acquire();  // a reset packet
  void release(Packet* p);
  std::size_t live() const;
  // `parts` partitions from now on (and slot 0 for what runs outside them). Between windows only.
  void set_partitions(unsigned parts);
  // Between windows: evens out the free lists (above).
  void balance();
  // Several MPI ranks (packet_ledger.h, the same): live() then counts every rank's packets.
  void set_rank_base() { rank_base_ = local_live(); }
  void gather_ranks();

 private:
  struct alignas(64) Slot {
    std::vector<std::unique_ptr<Packet>> made;
    std::vector<Packet*> free;
    std::int64_t live = 0;  // acquired minus released here (negative: it freed others' packets)
  };
  Slot& mine();
  std::int64_t local_live() const;
  std::vector<Slot> slots_;
  std::int64_t rank_base_ = 0;
  std::int64_t others_live_ = 0;  // the other ranks' acquired minus released since the split
};

}  // namespace ibfsim
