// SwitchInfo (SMP attribute 0x0012, IBA Vol1 14.2.5.4): a switch's forwarding capabilities and
// settings. 20 bytes, big-endian:
//   0-1 LinearFDBCap; 2-3 RandomFDBCap; 4-5 MulticastFDBCap; 6-7 LinearFDBTop; 8 DefaultPort;
//   9 DefaultMulticastPrimaryPort; 10 DefaultMulticastNotPrimaryPort;
//   11: LifeTimeValue (7-3) | PortStateChange (2) | OptimizedSLtoVLMappingProgramming (1-0);
//   12-13 LIDsPerPort; 14-15 PartitionEnforcementCap;
//   16: InboundEnforcementCap (7) | OutboundEnforcementCap (6) | FilterRawInboundCap (5) |
//       FilterRawOutboundCap (4) | EnhancedPort0 (3) | reserved (2-0); 17 reserved;
//   18-19 MulticastFDBTop. AttributeModifier 0.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_SWITCH_INFO = 0x0012;
constexpr std::size_t kSwitchInfoBytes = 20;

// A decoded SwitchInfo. life_time_value is 5 bits, optimized_sl_to_vl_mapping_programming 2 bits;
// both are masked on encode. port_state_change is set by the switch when any port changed state
// and cleared by the SM writing 1 (the light sweep polls it).
struct SwitchInfo {
  std::uint16_t linear_fdb_cap = 0;
  std::uint16_t random_fdb_cap = 0;
  std::uint16_t multicast_fdb_cap = 0;
  std::uint16_t linear_fdb_top = 0;
  PortNum default_port = 0;
  PortNum default_multicast_primary_port = 0;
  PortNum default_multicast_not_primary_port = 0;
  std::uint8_t life_time_value = 0;
  bool port_state_change = false;
  std::uint8_t optimized_sl_to_vl_mapping_programming = 0;
  std::uint16_t lids_per_port = 0;
  std::uint16_t partition_enforcement_cap = 0;
  bool inbound_enforcement_cap = false;
  bool outbound_enforcement_cap = false;
  bool filter_raw_inbound_cap = false;
  bool filter_raw_outbound_cap = false;
  bool enhanced_port0 = false;
  std::uint16_t multicast_fdb_top = 0;
};

SmpData encode_switch_info(const SwitchInfo& si);
SwitchInfo decode_switch_info(const std::uint8_t* in20);

}  // namespace ibfsim
