// Fast recovery of adaptive routing (docs/adaptive_routing.md, "Fast recovery"): what a switch does
// when one of its ports goes down, before and without any subnet manager sweep.
//
// Locally, nothing needs doing: the adaptive choice never takes a port that is not Active
// (adaptive_selector.h), from the instant the port goes down. But a switch may lose every way to
// some LIDs (a spine whose only cable to a leaf failed), while the switches upstream keep choosing
// it for them. With AdaptiveRoutingInfo.FastRecovery set, such a switch sends a **fault
// notification**, a packet of its own on the wire, to every neighbour switch (the ports the SM
// named in NotifyPortMask) but the failed port's, listing those LIDs, `latency` after the port
// went down. A switch that receives one (its tail in, then `latency` of processing) stops choosing
// the port it came in on for those of the LIDs it routes adaptively (for the others it has no other
// way anyway); those it then cannot reach at all it notifies on in turn (at most
// kFaultNotificationMaxHops switches away). Exclusions last until the SM programs new AR tables.
//
// The packet: an LRH on VL15 (no credits, like an SMP: it overtakes data), LNH 1 (raw, "non-IBA
// transport": no SMP or other IBA packet has it, so ibfsim takes it for its own), DLID the
// permissive LID, SLID the sender's LID, then a 4-byte header (type 0x01; 0x02 for a congestion
// notification, ar_congestion_notification.h; hops so far, LID count,
// big-endian) and the LIDs, 2 bytes each, padded to 4 bytes; no ICRC. At most kMaxLids per packet.
#pragma once
#include <bitset>
#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/time.h"

namespace ibfsim {

class Switch;

// The notification types: a fault's (LIDs lost), or congestion's (ar_congestion_notification.h).
constexpr std::uint8_t kArNotifyFault = 0x01;
constexpr std::uint8_t kArNotifyCongestion = 0x02;

struct FaultNotification {
  std::uint8_t hops = 0;
  std::vector<Lid> lids;
  std::uint8_t type = kArNotifyFault;
};

constexpr std::size_t kFaultNotificationMaxLids = 124;  // 252-byte payload
constexpr std::uint8_t kFaultNotificationMaxHops = 4;

// Fills `p` (a fresh packet) with the notification from `slid`.
void build_fault_notification(Packet& p, const FaultNotification& n, Lid slid);
// Reads one from a packet's payload; false if it is not one (wrong type or length).
bool parse_fault_notification(const Packet& p, FaultNotification& out);
// Whether an LRH is a fault notification's: VL15, LNH 1, DLID permissive.
bool is_fault_notification(const std::uint8_t* lrh);

struct FaultNotifierStats {
  std::uint64_t sent = 0;       // notification packets sent
  std::uint64_t received = 0;   // ... and received
  std::uint64_t excluded = 0;   // (LID, port) pairs excluded on their word
  std::vector<Time> applied;    // when this switch applied one that excluded something, in order
};

class FaultNotifier {
 public:
  explicit FaultNotifier(Switch& sw) : sw_(sw) {}
  std::string name() const;  // event traces

  // Whether a notification told this switch not to send packets for `dlid` out of `port`.
  bool excluded(Lid dlid, PortNum port) const {
    if (excluded_.empty()) return false;
    const auto it = excluded_.find(dlid);
    return it != excluded_.end() && it->second.test(port);
  }
  // The SM programmed new AR tables: they supersede every exclusion.
  void clear() { excluded_.clear(); }
  // Port `port` changed state (the switch's PortOwner hook).
  void port_changed(PortNum port);
  const FaultNotifierStats& stats() const { return stats_; }

  // --- events (event.h) ---
  struct Pending {
    std::uint32_t index;  // into pending_
    std::string text() const { return "notification " + std::to_string(index); }
  };
  // A notification's tail is in (where: its port, and whether the link layer must judge it): its
  // buffer is freed, and a good one applies `latency` later.
  struct Arrival {
    PortNum in;
    bool check;
  };
  void arrives(Packet* p, Arrival a);
  void apply(Pending what);
  // The LIDs lost when a port went down are announced.
  void announce(Pending what);

 private:
  struct Work {
    FaultNotification n;
    PortNum port = 0;  // the port it came in on, or that went down
  };
  // Whether this switch can still send a packet for `lid` anywhere (not counting `but`).
  bool reachable(Lid lid) const;
  void send(const FaultNotification& n, PortNum except);
  std::uint32_t park(Work w);

  Switch& sw_;
  std::unordered_map<Lid, std::bitset<256>> excluded_;
  std::vector<Work> pending_;
  std::vector<std::uint32_t> free_;
  FaultNotifierStats stats_;
};

}  // namespace ibfsim
