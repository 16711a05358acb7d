// CACongestionSetting (CC attribute 0x0016, IBA Vol1 Annex A10.4.3.8; AttributeModifier 0): how
// a CA port reacts to BECNs. 132 bytes of the management data area, big-endian:
//   0-1 Port_Control: bit 0 = 0 congestion control per QP, 1 per SL (per port and SL);
//   2-3 Control_Map: bit s = a Set updates the entry of SL s;
//   4 + 8 s: the CACongestionEntry of SL s (s = 0..15):
//     0-1 CCTI_Timer (units of 1.024 us: each expiry takes 1 off the CCTI);
//     2   CCTI_Increase (added to the CCTI on each BECN);
//     3   Trigger_Threshold (reaching it logs an event); 4 CCTI_Min; 5-7 reserved.
// Layout: OpenSM ib_ca_cong_setting_t / ib_ca_cong_entry_t, libibmad [V].
#pragma once
#include <array>
#include <cstdint>

#include "sim/subnet_manager/congestion_control/cc_mad.h"

namespace ibfsim {

constexpr std::uint16_t kCaCcPortControlPerSl = 0x0001;

struct CaCongestionEntryFields {
  std::uint16_t ccti_timer = 0;
  std::uint8_t ccti_increase = 0;
  std::uint8_t trigger_threshold = 0;
  std::uint8_t ccti_min = 0;
};

struct CaCongestionSetting {
  std::uint16_t port_control = 0;
  std::uint16_t control_map = 0;
  std::array<CaCongestionEntryFields, 16> entries{};
};

CcMgmtData encode_ca_congestion_setting(const CaCongestionSetting& s);
CaCongestionSetting decode_ca_congestion_setting(const std::uint8_t* data);

}  // namespace ibfsim
