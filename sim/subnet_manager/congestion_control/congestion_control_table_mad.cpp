#include "sim/subnet_manager/congestion_control/congestion_control_table_mad.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

CcMgmtData encode_congestion_control_table_block(const CongestionControlTableBlock& b) {
  CcMgmtData d{};
  store_be16(d.data(), b.ccti_limit);
  for (std::size_t i = 0; i < b.entries.size(); ++i) store_be16(d.data() + 4 + 2 * i, encode_cct_entry(b.entries[i]));
  return d;
}

CongestionControlTableBlock decode_congestion_control_table_block(const std::uint8_t* data) {
  CongestionControlTableBlock b;
  b.ccti_limit = load_be16(data);
  for (std::size_t i = 0; i < b.entries.size(); ++i) b.entries[i] = decode_cct_entry(load_be16(data + 4 + 2 * i));
  return b;
}

}  // namespace ibfsim
