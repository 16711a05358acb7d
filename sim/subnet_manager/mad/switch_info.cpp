#include "sim/subnet_manager/mad/switch_info.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

SmpData encode_switch_info(const SwitchInfo& si) {
  SmpData out{};
  store_be16(&out[0], si.linear_fdb_cap);
  store_be16(&out[2], si.random_fdb_cap);
  store_be16(&out[4], si.multicast_fdb_cap);
  store_be16(&out[6], si.linear_fdb_top);
  out[8] = si.default_port;
  out[9] = si.default_multicast_primary_port;
  out[10] = si.default_multicast_not_primary_port;
  out[11] = static_cast<std::uint8_t>((si.life_time_value & 0x1F) << 3 | si.port_state_change << 2 |
                                      (si.optimized_sl_to_vl_mapping_programming & 0x03));
  store_be16(&out[12], si.lids_per_port);
  store_be16(&out[14], si.partition_enforcement_cap);
  out[16] = static_cast<std::uint8_t>(si.inbound_enforcement_cap << 7 |
                                      si.outbound_enforcement_cap << 6 |
                                      si.filter_raw_inbound_cap << 5 |
                                      si.filter_raw_outbound_cap << 4 | si.enhanced_port0 << 3);
  store_be16(&out[18], si.multicast_fdb_top);
  return out;
}

SwitchInfo decode_switch_info(const std::uint8_t* in20) {
  SwitchInfo si;
  si.linear_fdb_cap = load_be16(in20 + 0);
  si.random_fdb_cap = load_be16(in20 + 2);
  si.multicast_fdb_cap = load_be16(in20 + 4);
  si.linear_fdb_top = load_be16(in20 + 6);
  si.default_port = in20[8];
  si.default_multicast_primary_port = in20[9];
  si.default_multicast_not_primary_port = in20[10];
  si.life_time_value = in20[11] >> 3;
  si.port_state_change = in20[11] & 0x04;
  si.optimized_sl_to_vl_mapping_programming = in20[11] & 0x03;
  si.lids_per_port = load_be16(in20 + 12);
  si.partition_enforcement_cap = load_be16(in20 + 14);
  si.inbound_enforcement_cap = in20[16] & 0x80;
  si.outbound_enforcement_cap = in20[16] & 0x40;
  si.filter_raw_inbound_cap = in20[16] & 0x20;
  si.filter_raw_outbound_cap = in20[16] & 0x10;
  si.enhanced_port0 = in20[16] & 0x08;
  si.multicast_fdb_top = load_be16(in20 + 18);
  return si;
}

}  // namespace ibfsim
