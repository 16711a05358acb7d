// Adaptive routing attributes: ibfsim's own vendor-specific SMP attributes (IBA Vol1 13.4.8.2
// leaves 0xFF00-0xFFFF to vendors), with which the subnet manager programs a switch's adaptive
// routing in band (docs/adaptive_routing.md). Their shape follows what vendors' AR managers program
// (an enable and SL mask, a table of port groups, a LID -> group table beside the LFT); the IDs
// and layouts are ibfsim's. Big-endian, in the 64-byte SMP data:
//
//   AdaptiveRoutingInfo (0xFF80), AttributeModifier 0:
//     0: Enable (7) | FastRecovery (6) | reserved (5-0); 1 CreditLevels (free credits are compared
//     in levels of the next buffer / this; 0: exactly); 2-3 EnableBySLMask (bit s: SL s);
//     4-5 GroupCap (read-only: the groups the switch holds, 1..GroupCap); 6-7 GroupTop (the highest
//     group programmed); 8-11 FlowletGap in ns (0: every packet chooses; otherwise a flow (SLID,
//     DLID) keeps its port while its packets follow each other closer than this); 12-13
//     CongestionThreshold (blocks queued for an output that make the switch send a congestion
//     notification upstream; 0: never); 14 FlowletMargin (a flow leaves its port only for one
//     this many credit levels better; 0 and 1: any level); 15 reserved; 16-47 NotifyPortMask (a port mask as
//     below: the ports whose far end is a switch, where fault and congestion notifications go);
//     48-51 CongestionHold in ns (how long a congestion notification ranks its port last);
//     52-63 reserved.
//   AdaptiveRoutingGroupTable (0xFF81), AttributeModifier: block b, groups 2b and 2b+1 (group 0
//     is never used: it means "static"), 32 bytes each: a port mask, the 256-bit big-endian number
//     with bit p set for port p (so port p is bit p % 8 of byte 31 - p / 8 of its group).
//   AdaptiveRoutingLFT (0xFF82), AttributeModifier: block b, LIDs 32b..32b+31, 2 bytes each:
//     reserved (15-12) | group (11-0); group 0: the LID is routed by the LFT alone.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IBFSIM_MAD_ATTR_AR_INFO = 0xFF80;
constexpr std::uint16_t IBFSIM_MAD_ATTR_AR_GROUP_TABLE = 0xFF81;
constexpr std::uint16_t IBFSIM_MAD_ATTR_AR_LFT = 0xFF82;

constexpr std::size_t kArGroupsPerBlock = 2;
constexpr std::size_t kArGroupMaskBytes = 32;
constexpr std::size_t kArLftBlockEntries = 32;
constexpr std::uint16_t kArGroupMax = 0x0FFF;  // 12-bit group numbers

struct AdaptiveRoutingInfo {
  bool enable = false;
  bool fast_recovery = false;
  std::uint8_t credit_levels = 0;
  std::uint16_t sl_mask = 0;
  std::uint16_t group_cap = 0;
  std::uint16_t group_top = 0;
  std::uint32_t flowlet_gap_ns = 0;
  std::uint16_t congestion_threshold = 0;  // blocks (0: no congestion notifications)
  std::array<std::uint8_t, 32> notify_ports{};  // a port mask (ar_port_mask)
  std::uint32_t congestion_hold_ns = 0;
  std::uint8_t flowlet_margin = 0;  // levels (0 and 1: a level better is enough)
};

// A port mask: ports 0..255.
using ArPortMask = std::array<std::uint8_t, kArGroupMaskBytes>;
ArPortMask ar_port_mask(const std::vector<PortNum>& ports);
std::vector<PortNum> ar_mask_ports(const ArPortMask& mask);  // ascending

struct ArGroupTableBlock {
  std::array<ArPortMask, kArGroupsPerBlock> groups{};
};

struct ArLftBlock {
  std::array<std::uint16_t, kArLftBlockEntries> groups{};
};

SmpData encode_ar_info(const AdaptiveRoutingInfo& info);
AdaptiveRoutingInfo decode_ar_info(const std::uint8_t* in64);
SmpData encode_ar_group_table(const ArGroupTableBlock& block);
ArGroupTableBlock decode_ar_group_table(const std::uint8_t* in64);
SmpData encode_ar_lft(const ArLftBlock& block);
ArLftBlock decode_ar_lft(const std::uint8_t* in64);

}  // namespace ibfsim
