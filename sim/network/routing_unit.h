// The routing unit of a switch: where a packet goes, decided once, on its LRH as it arrives (read
// through the codec, lrh.h), from the forwarding state the SMA programs: the switch's LID and LMC,
// the LFT and MFT, SL->VL per (input, output) and NeighborMTU per output. A pure function of that
// state and the switch's ports: no time, no queue, no SystemC (route()).
//
// Discards decided here, each counted at the input at the packet's tail (input_unit.h), checked in
// this order: LVer not 0 (R8); DLID 0, or an SLID that is not unicast (0xFFFF is allowed on VL15
// only, for directed-route SMPs) (R13); unknown DLID or above LinearFDBTop, an output that is not
// cabled, a multicast group with no cabled port but the input, or a multicast packet on VL15 (R15);
// SL mapped to VL15 or a non-operational VL (R16); payload above the output MTU (R10).
//
// Adaptive routing (adaptive_routing.h): a data packet whose SL the switch routes adaptively and
// whose DLID has an AR group is decided kUnicast with that group; the switch then chooses its port
// among the group's (adaptive_selector.h), and the checks above apply to the port chosen.
//
// Fault notifications (fault_notification.h: VL15, LNH 1, DLID permissive) go to the switch's
// fault notifier.
//
// Management port 0: a VL15 packet whose DLID is the permissive LID or one of the switch's own
// LIDs (LID .. LID + 2^LMC - 1), and a data-VL packet (a GMP) to one of its own LIDs, go to the
// management port (management_port.h) instead of an output.
//
// In a router (router.h) the decision is taken on the GRH instead (grh_forwarding.h): every port is
// an end port with LIDs of its own; a packet to the input port's LID goes to the management port
// when it is an SMP or has no GRH, and otherwise to the output its DGID's subnet prefix names; one
// to any other LID, an expired HopLmt (1 or 0) or a DGID without route is discarded as a relay
// error (kUnknownDlid); SL to VL and the MTU as in a switch.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet_ledger.h"
#include "sim/link/sl_to_vl_table.h"
#include "sim/link/vl_arbiter.h"
#include "sim/network/adaptive_routing.h"
#include "sim/network/grh.h"
#include "sim/network/grh_forwarding.h"
#include "sim/network/lft.h"
#include "sim/link/lrh.h"
#include "sim/network/mft.h"

namespace ibfsim {

// Where the routing unit sends a packet.
struct RouteDecision {
  // kNotification: a fault notification of adaptive routing's fast recovery (fault_notification.h).
  enum class Kind : std::uint8_t { kUnicast, kMulticast, kManagement, kDiscard, kNotification };
  Kind kind = Kind::kDiscard;
  DropReason reason = DropReason::kCount;        // kDiscard: why
  PortNum out = 0;                               // kUnicast: the output ...
  std::uint8_t out_vl = 0;                       // ... and its VL there (VL15 for an SMP passing through)
  const std::vector<PortNum>* group = nullptr;   // kMulticast: the MFT entry ...
  std::uint16_t copies = 0;                      // ... and its cabled ports but the input: one copy each
  // kUnicast by adaptive routing: the packet's AR group, among whose ports the switch chooses
  // (adaptive_selector.h); `out` is then the LFT's port, not yet checked (unicast_to).
  std::uint16_t ar_group = 0;
};

class RoutingUnit {
 public:
  // `mtu`: the payload every output accepts until the SMA sets its NeighborMTU; multicast packets
  // are held to it. `op_vls`: the ports' data VLs, for the default SL->VL (SL s -> VL s mod op_vls).
  RoutingUnit(unsigned num_ports, unsigned op_vls, std::uint32_t mtu);

  // The switch's LID and LMC (PortInfo of port 0): LID .. LID + 2^LMC - 1 are its own.
  void set_lid(Lid lid, std::uint8_t lmc = 0) {
    lid_ = lid;
    lmc_ = lmc;
  }
  Lid lid() const { return lid_; }
  bool is_own_lid(Lid dlid) const {
    return lid_ != 0 && dlid >= lid_ && static_cast<unsigned>(dlid - lid_) < (1u << lmc_);
  }
  Lft& lft() { return lft_; }
  const Lft& lft() const { return lft_; }
  Mft& mft() { return mft_; }
  const Mft& mft() const { return mft_; }
  ArTable& adaptive() { return ar_; }
  const ArTable& adaptive() const { return ar_; }
  void set_neighbor_mtu(PortNum out, std::uint32_t bytes) { out_mtu_.at(out - 1) = bytes; }
  std::uint32_t neighbor_mtu(PortNum out) const { return out_mtu_.at(out - 1); }
  // SL->VL of packets from input `in` to output `out` (both 1..num_ports).
  void set_sl_to_vl(PortNum in, PortNum out, const SlToVlTable& table);
  // Every table at once, [in][out] with ports 1-based (empty: the default everywhere).
  void set_sl_to_vl(std::vector<std::vector<SlToVlTable>> tables) { sl_to_vl_ = std::move(tables); }
  const SlToVlTable& sl_to_vl(PortNum in, PortNum out) const {
    return sl_to_vl_.empty() ? default_sl_to_vl_ : sl_to_vl_[in][out];
  }

  // The VL a packet on `sl` from `in` takes on output `out`, which operates `out_op_vls` data
  // VLs; VL15 if it is dropped instead (R16: the SL maps to VL15 or to a VL the output lacks).
  std::uint8_t output_vl(PortNum in, PortNum out, std::uint8_t sl, unsigned out_op_vls) const {
    const std::uint8_t vl = sl_to_vl(in, out).vl(sl);
    return vl >= out_op_vls ? kVl15 : vl;
  }

  // The decision for the packet whose LRH is `lrh` and payload `payload_len` bytes, arrived on
  // `in`. `ports` tells which ports are cabled and their data VLs: any type with
  //   unsigned count() const;  bool connected(PortNum) const;  unsigned op_vls(PortNum) const;
  // (the switch's LinkPorts, or plain values in a test).
  template <class Ports>
  RouteDecision route(PortNum in, const std::uint8_t* lrh, std::uint32_t payload_len, const Ports& ports) const;
  // The unicast decision for output `out` (R15 for an output that is no cabled port, R16, R10).
  template <class Ports>
  RouteDecision unicast_to(PortNum in, PortNum out, const std::uint8_t* lrh, std::uint32_t payload_len,
                           const Ports& ports) const;

  // Router mode: decisions on the GRH with these tables (owned by the router); null in a switch.
  void set_grh_forwarding(const GrhForwarding* f) { grh_ = f; }
  const GrhForwarding* grh_forwarding() const { return grh_; }

 private:
  template <class Ports>
  RouteDecision route_by_grh(PortNum in, const std::uint8_t* lrh, std::uint32_t payload_len, const Ports& ports) const;
  static RouteDecision discard(DropReason why) { return {RouteDecision::Kind::kDiscard, why}; }

  Lid lid_ = 0;
  std::uint8_t lmc_ = 0;
  Lft lft_;
  Mft mft_;
  ArTable ar_;
  std::uint32_t mtu_;
  std::vector<std::uint32_t> out_mtu_;  // [out - 1]
  SlToVlTable default_sl_to_vl_;
  std::vector<std::vector<SlToVlTable>> sl_to_vl_;  // [in][out], ports 1-based (index 0 unused)
  const GrhForwarding* grh_ = nullptr;
};

template <class Ports>
RouteDecision RoutingUnit::route(PortNum in, const std::uint8_t* lrh, std::uint32_t payload_len,
                                 const Ports& ports) const {
  using Kind = RouteDecision::Kind;
  const std::uint8_t vl_in = lrh_vl(lrh);
  if (lrh_lver(lrh) != 0) return discard(DropReason::kMalformed);  // R8
  const Lid dlid = lrh_dlid(lrh);
  // R13: DLID 0 is never valid; the SLID is unicast, or permissive in a directed-route SMP.
  const Lid slid = lrh_slid(lrh);
  if (dlid == kLidReserved || !(is_unicast_lid(slid) || (slid == kLidPermissive && vl_in == kVl15)))
    return discard(DropReason::kInvalidLid);
  if (grh_) return route_by_grh(in, lrh, payload_len, ports);
  // A neighbour switch's fault notification: VL15, LNH 1, to the permissive LID.
  if (vl_in == kVl15 && dlid == kLidPermissive && lrh_lnh(lrh) == kLnhRawIpv6) return {Kind::kNotification};
  // An SMP to the switch (directed route or its LID), or a GMP to its LID (QP1 behind port 0).
  if (is_own_lid(dlid) || (vl_in == kVl15 && dlid == kLidPermissive)) return {Kind::kManagement};
  if (is_multicast_lid(dlid)) {
    const std::vector<PortNum>* group = mft_.lookup(dlid);
    std::uint16_t copies = 0;
    if (group)
      for (PortNum o : *group)
        if (o != in && o >= 1 && o <= ports.count() && ports.connected(o)) ++copies;
    if (copies == 0 || vl_in == kVl15) return discard(DropReason::kUnknownDlid);
    if (payload_len > mtu_) return discard(DropReason::kMtuExceeded);
    return {Kind::kMulticast, DropReason::kCount, 0, 0, group, copies};
  }
  const PortNum out = lft_.lookup(dlid);
  if (vl_in != kVl15)
    if (const std::uint16_t g = ar_.applies(dlid, lrh_sl(lrh))) {
      RouteDecision d{Kind::kUnicast, DropReason::kCount, out, 0};
      d.ar_group = g;
      return d;
    }
  return unicast_to(in, out, lrh, payload_len, ports);
}

template <class Ports>
RouteDecision RoutingUnit::unicast_to(PortNum in, PortNum out, const std::uint8_t* lrh, std::uint32_t payload_len,
                                      const Ports& ports) const {
  using Kind = RouteDecision::Kind;
  const std::uint8_t vl_in = lrh_vl(lrh);
  if (out == kNoRoute || out == 0 || out > ports.count() || !ports.connected(out))
    return discard(DropReason::kUnknownDlid);
  std::uint8_t out_vl = kVl15;  // an SMP routed by LID stays on VL15
  if (vl_in != kVl15) {
    out_vl = output_vl(in, out, lrh_sl(lrh), ports.op_vls(out));
    if (out_vl == kVl15) return discard(DropReason::kSlToVlDrop);
  }
  if (payload_len > out_mtu_[out - 1]) return discard(DropReason::kMtuExceeded);
  return {Kind::kUnicast, DropReason::kCount, out, out_vl};
}

template <class Ports>
RouteDecision RoutingUnit::route_by_grh(PortNum in, const std::uint8_t* lrh, std::uint32_t payload_len,
                                        const Ports& ports) const {
  using Kind = RouteDecision::Kind;
  const Lid dlid = lrh_dlid(lrh);
  const bool own = grh_->is_own_lid(in, dlid);
  if (lrh_vl(lrh) == kVl15) return own || dlid == kLidPermissive ? RouteDecision{Kind::kManagement} : discard(DropReason::kUnknownDlid);
  if (!own) return discard(DropReason::kUnknownDlid);  // an end port takes only its own LIDs
  if (lrh_lnh(lrh) != kLnhIbaGlobal) return {Kind::kManagement};  // a GMP to the router's QP1
  const std::uint8_t* grh = lrh + kLrhBytes;
  if (grh_hop_limit(grh) <= 1) return discard(DropReason::kUnknownDlid);
  const auto hop = grh_->next_hop(grh_dgid_prefix(grh), grh_dgid_guid(grh));
  if (!hop || hop->out == in || hop->out > ports.count() || !ports.connected(hop->out))
    return discard(DropReason::kUnknownDlid);
  const std::uint8_t out_vl = output_vl(in, hop->out, lrh_sl(lrh), ports.op_vls(hop->out));
  if (out_vl == kVl15) return discard(DropReason::kSlToVlDrop);
  if (payload_len > out_mtu_[hop->out - 1]) return discard(DropReason::kMtuExceeded);
  return {Kind::kUnicast, DropReason::kCount, hop->out, out_vl};
}

}  // namespace ibfsim
