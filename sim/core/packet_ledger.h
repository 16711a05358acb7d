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

class PacketLedger {
 public:
  void created() { ++created_; }
  void injected() { ++injected_; }
  void delivered() { ++delivered_; }
  void dropped(DropReason r) { ++dropped_[static_cast<int>(r)]; }
  // A drop of either kind: `management` says which (see is_management_packet).
  void dropped(DropReason r, bool management) {
    if (management) ++mgmt_dropped_[static_cast<int>(r)];
    else ++dropped_[static_cast<int>(r)];
  }
  // An Ethernet switch dropped a frame (no lossless flow control yet: a full buffer drops); the
  // switch counts it under its own reason (ethernet/ethernet_switch.h), the ledger in the total.
  void dropped_frame() { ++frames_dropped_; }
  std::uint64_t frames_dropped_count() const { return frames_dropped_; }
  void management_created() { ++mgmt_created_; }
  void management_delivered() { ++mgmt_delivered_; }
  // A switch made a copy of a multicast packet (the copy is created and injected there) ...
  void replica_created() { ++created_; ++injected_; }
  // ... and retired the original once every copy had left.
  void replicated() { ++replicated_; }

  std::uint64_t created_count() const { return created_; }
  std::uint64_t injected_count() const { return injected_; }
  std::uint64_t delivered_count() const { return delivered_; }
  std::uint64_t dropped_count(DropReason r) const { return dropped_[static_cast<int>(r)]; }
  std::uint64_t dropped_total() const;
  std::uint64_t replicated_count() const { return replicated_; }
  std::uint64_t management_created_count() const { return mgmt_created_; }
  std::uint64_t management_delivered_count() const { return mgmt_delivered_; }
  std::uint64_t management_dropped_count(DropReason r) const { return mgmt_dropped_[static_cast<int>(r)]; }
  std::uint64_t management_dropped_total() const;
  // Management packets created and neither delivered nor dropped yet.
  std::uint64_t management_alive() const { return mgmt_created_ - mgmt_delivered_ - management_dropped_total(); }

  // Throws SimError unless created = delivered + dropped + replicated + alive and injected -
  // delivered - dropped - replicated = alive - queued (packets posted but not yet on the wire),
  // for the workload's packets: `alive` counts every live packet, management ones included, and
  // `queued_at_sources` only the workload's.
  void check_balanced(std::uint64_t alive, std::uint64_t queued_at_sources) const;

 private:
  std::uint64_t created_ = 0, injected_ = 0, delivered_ = 0, replicated_ = 0;
  std::array<std::uint64_t, static_cast<int>(DropReason::kCount)> dropped_{};
  std::uint64_t mgmt_created_ = 0, mgmt_delivered_ = 0;
  std::uint64_t frames_dropped_ = 0;
  std::array<std::uint64_t, static_cast<int>(DropReason::kCount)> mgmt_dropped_{};
};

}  // namespace ibfsim
