// SwitchPortCongestionSetting (CC attribute 0x0015, IBA Vol1 Annex A10.4.3.7): per-port
// overrides of SwitchCongestionSetting, 32 ports per block; AttributeModifier = block number
// (element i is port 32 x block + i). Each element is 4 bytes, big-endian:
//   0: Valid (7) | Control_Type (6) | reserved (5-4) | Threshold (3-0)
//   1: Packet_Size (Control_Type 0; reserved for 1)
//   2-3: Cong_Parm: Marking_Rate (Control_Type 0; reserved for 1)
// Control_Type 0 sets the port's congestion marking (Threshold, Packet_Size, Marking_Rate),
// 1 its credit starvation threshold (CS_Threshold in the Threshold field). An element that is
// not Valid changes nothing. Layout: OpenSM ib_sw_port_cong_setting_element_t, libibmad [V].
#pragma once
#include <array>
#include <cstdint>

#include "sim/subnet_manager/congestion_control/cc_mad.h"

namespace ibfsim {

constexpr unsigned kSwitchPortCongestionBlockPorts = 32;

struct SwitchPortCongestionElement {
  bool valid = false;
  bool credit_starvation = false;  // Control_Type 1
  std::uint8_t threshold = 0;      // 4 bits
  std::uint8_t packet_size = 0;
  std::uint16_t marking_rate = 0;
};

using SwitchPortCongestionSetting = std::array<SwitchPortCongestionElement, kSwitchPortCongestionBlockPorts>;

CcMgmtData encode_switch_port_congestion_setting(const SwitchPortCongestionSetting& s);
SwitchPortCongestionSetting decode_switch_port_congestion_setting(const std::uint8_t* data);

}  // namespace ibfsim
