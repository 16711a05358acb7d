// Fabric-wide accounting of every packet: created (posted by a source), injected (first symbol on
// the wire), delivered, or dropped with a reason. At the end of a run the ledger must balance
// against the packets still alive (see check_balanced), so no packet is ever silently lost.
// Management packets (SMPs, the only packets on VL15, R1) are counted apart, so that the traffic
// figures are the workload's alone: an SMP is created when an SMA or SM sends it and delivered
// when one consumes it.
#pragma once
#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/partition_slot.h"

namespace ibfsim {

enum class DropReason : std::uint8_t {
  kVcrcError,        // bad VCRC at a receiver (PortRcvErrors)
  kIcrcError,        // bad ICRC at the destination CA
  kUnknownDlid,      // no LFT entry / DLID above LinearFDBTop (PortRcvSwitchRelayErrors)
  kWrongDlid,        // a CA received a packet addressed to another LID
  kMalformed,        // header rules (LVer, TVer, PktLen) broken (PortRcvErrors)
  kNoQp,             // destination QP does not exist
  kQkeyMismatch,     // UD Q_Key mismatch (Q_KeyViolations)
  kVl15Overflow,     // no VL15 buffer space (VL15Dropped)
  kInvalidVl,        // arrived on a VL the port does not operate (PortRcvErrors)
  kSlToVlDrop,       // SL maps to VL15 or a non-operational VL (R16, PortXmitDiscards)
  kMtuExceeded,      // payload above the output's MTU (R10, PortXmitDiscards)
  kHoqLifetime,      // head of queue longer than HOQLife (R17, PortXmitDiscards)
  kSwitchLifetime,   // older than the switch LifeTimeValue (R18, PortXmitDiscards)
  kPortState,        // port not in a state that passes this packet (R20)
  kLinkDown,         // lost on, or queued for, a link that went down (PortXmitDiscards)
  kPhyError,         // the receiver's PHY saw a symbol or framing error (SymbolErrorCounter, PortRcvErrors)
  kPkeyViolation,    // BTH P_Key does not match the destination QP's partition (R37, P_KeyViolations)
  kEbp,              // ended with EBP: a switch cut it through and then found it bad (PortRcvErrors)
  kInvalidLid,       // DLID 0, or an SLID that is not unicast (0xFFFF only in directed-route SMPs) (R13)
  kSourceMismatch,   // an RC/UC packet not from the connected QP's peer: SLID (or SGID) not its path's (9.6.1.5)
  kCount
};

const char* drop_reason_name(DropReason r);  // snake_case, as used in results.json

// With partitions (docs/architecture.md, "Partitions") each keeps counts of its own
// (partition_slot.h), written only by the thread running it; every figure read is their sum, so
// it does not depend on which partition counted what, nor in which order. Read between windows
// (barriers, global instants) or after the run.
class PacketLedger {
 public:
  PacketLedger() : slots_(1) {}
  void created() { ++mine().created; }
  void injected() { ++mine().injected; }
  void delivered() { ++mine().delivered; }
  void dropped(DropReason r) { ++mine().dropped[static_cast<int>(r)]; }
  // A drop of either kind: `management` says which (see is_management_packet).
  void dropped(DropReason r, bool management) {
    Counts& c = mine();
    if (management) ++c.mgmt_dropped[static_cast<int>(r)];
    else ++c.dropped[static_cast<int>(r)];
  }
  // An Ethernet switch dropped a frame (no lossless flow control yet: a full buffer drops); the
  // switch counts it under its own reason (ethernet/ethernet_switch.h), the ledger in the total.
  void dropped_frame() { ++mine().frames_dropped; }
  std::uint64_t frames_dropped_count() const { return sum(&Counts::frames_dropped); }
  void management_created() { ++mine().mgmt_created; }
  void management_delivered() { ++mine().mgmt_delivered; }
  // A switch made a copy of a multicast packet (the copy is created and injected there) ...
  void replica_created() {
    Counts& c = mine();
    ++c.created;
    ++c.injected;
  }
  // ... and retired the original once every copy had left.
  void replicated() { ++mine().replicated; }
  // `parts` partitions from now on (slot 0 for what runs outside them). Between windows only.
  void set_partitions(unsigned parts) {
    // Slot parts + 1 holds the other MPI ranks' counts (gather_ranks); no partition writes it.
    if (slots_.size() < std::size_t{parts} + 2) slots_.resize(std::size_t{parts} + 2);
  }
  // Several MPI ranks (rank_exchange.h). Every rank counted what it did before the run was split
  // alike (elaboration): set_rank_base keeps it. gather_ranks (a collective, between windows)
  // then puts the other ranks' counts since then into this rank's figures, so that every figure
  // is the whole run's on every rank.
  void set_rank_base();
  void gather_ranks();

  std::uint64_t created_count() const { return sum(&Counts::created); }
  std::uint64_t injected_count() const { return sum(&Counts::injected); }
  std::uint64_t delivered_count() const { return sum(&Counts::delivered); }
  std::uint64_t dropped_count(DropReason r) const;
  std::uint64_t dropped_total() const;
  std::uint64_t replicated_count() const { return sum(&Counts::replicated); }
  std::uint64_t management_created_count() const { return sum(&Counts::mgmt_created); }
  std::uint64_t management_delivered_count() const { return sum(&Counts::mgmt_delivered); }
  std::uint64_t management_dropped_count(DropReason r) const;
  std::uint64_t management_dropped_total() const;
  // Management packets created and neither delivered nor dropped yet.
  std::uint64_t management_alive() const {
    return management_created_count() - management_delivered_count() - management_dropped_total();
  }

  // Throws SimError unless created = delivered + dropped + replicated + alive and injected -
  // delivered - dropped - replicated = alive - queued (packets posted but not yet on the wire),
  // for the workload's packets: `alive` counts every live packet, management ones included, and
  // `queued_at_sources` only the workload's.
  void check_balanced(std::uint64_t alive, std::uint64_t queued_at_sources) const;

 private:
  using Drops = std::array<std::uint64_t, static_cast<int>(DropReason::kCount)>;
  struct alignas(64) Counts {
    std::uint64_t created = 0, injected = 0, delivered = 0, replicated = 0;
    Drops dropped{};
    std::uint64_t mgmt_created = 0, mgmt_delivered = 0;
    std::uint64_t frames_dropped = 0;
    Drops mgmt_dropped{};
  };
  Counts& mine() {
    const unsigned s = partition_slot;
    return slots_[s < slots_.size() ? s : 0];
  }
  std::uint64_t sum(std::uint64_t Counts::*field) const {
    std::uint64_t n = 0;
    for (const Counts& c : slots_) n += c.*field;
    return n;
  }
  std::vector<Counts> slots_;
  std::vector<std::uint64_t> local_counts() const;
  std::vector<std::uint64_t> rank_base_;  // set_rank_base: local_counts()
};

}  // namespace ibfsim
