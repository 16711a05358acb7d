// CongestionInfo (CC attribute 0x0011, IBA Vol1 Annex A10.4.3.3; read-only, AttributeModifier 0):
// what congestion control a node supports. In the management data area:
//   0-1 CongestionInfo: bit 0 set = credit starvation supported (switches) [K: OPA's copy of the
//       IB definition, CC_CONGESTION_INFO_CREDIT_STARVATION]; other bits reserved here;
//   2   ControlTableCap: the number of 64-entry blocks of the CongestionControlTable (CAs).
#pragma once
#include <cstdint>

#include "sim/subnet_manager/congestion_control/cc_mad.h"

namespace ibfsim {

constexpr std::uint16_t kCongestionInfoCreditStarvation = 0x0001;

struct CongestionInfo {
  std::uint16_t congestion_info = 0;
  std::uint8_t control_table_cap = 0;
};

CcMgmtData encode_congestion_info(const CongestionInfo& ci);
CongestionInfo decode_congestion_info(const std::uint8_t* data);

}  // namespace ibfsim
