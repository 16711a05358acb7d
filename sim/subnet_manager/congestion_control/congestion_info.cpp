#include "sim/subnet_manager/congestion_control/congestion_info.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

CcMgmtData encode_congestion_info(const CongestionInfo& ci) {
  CcMgmtData d{};
  store_be16(d.data(), ci.congestion_info);
  d[2] = ci.control_table_cap;
  return d;
}

CongestionInfo decode_congestion_info(const std::uint8_t* data) {
  CongestionInfo ci;
  ci.congestion_info = load_be16(data);
  ci.control_table_cap = data[2];
  return ci;
}

}  // namespace ibfsim
