#include "sim/subnet_manager/mad/port_info.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

namespace {
// Two nibbles into one byte: `high` in bits 7-4, `low` in bits 3-0.
std::uint8_t nibbles(std::uint8_t high, std::uint8_t low) {
  return static_cast<std::uint8_t>((high & 0x0F) << 4 | (low & 0x0F));
}
}  // namespace

SmpData encode_port_info(const PortInfo& pi) {
  SmpData out{};
  store_be64(&out[0], pi.m_key);
  store_be64(&out[8], pi.gid_prefix);
  store_be16(&out[16], pi.lid);
  store_be16(&out[18], pi.master_sm_lid);
  store_be32(&out[20], pi.capability_mask);
  store_be16(&out[24], pi.diag_code);
  store_be16(&out[26], pi.m_key_lease_period);
  out[28] = pi.local_port_num;
  out[29] = pi.link_width_enabled;
  out[30] = pi.link_width_supported;
  out[31] = pi.link_width_active;
  out[32] = nibbles(pi.link_speed_supported, pi.port_state);
  out[33] = nibbles(pi.port_physical_state, pi.link_down_default_state);
  out[34] = static_cast<std::uint8_t>((pi.m_key_protect_bits & 0x03) << 6 | (pi.lmc & 0x07));
  out[35] = nibbles(pi.link_speed_active, pi.link_speed_enabled);
  out[36] = nibbles(pi.neighbor_mtu, pi.master_sm_sl);
  out[37] = nibbles(pi.vl_cap, pi.init_type);
  out[38] = pi.vl_high_limit;
  out[39] = pi.vl_arbitration_high_cap;
  out[40] = pi.vl_arbitration_low_cap;
  out[41] = nibbles(pi.init_type_reply, pi.mtu_cap);
  out[42] = static_cast<std::uint8_t>((pi.vl_stall_count & 0x07) << 5 | (pi.hoq_life & 0x1F));
  out[43] = static_cast<std::uint8_t>(
      (pi.operational_vls & 0x0F) << 4 | pi.partition_enforcement_inbound << 3 |
      pi.partition_enforcement_outbound << 2 | pi.filter_raw_inbound << 1 | pi.filter_raw_outbound);
  store_be16(&out[44], pi.m_key_violations);
  store_be16(&out[46], pi.p_key_violations);
  store_be16(&out[48], pi.q_key_violations);
  out[50] = pi.guid_cap;
  out[51] = static_cast<std::uint8_t>(pi.client_reregister << 7 |
                                      pi.multicast_pkey_trap_suppression_enabled << 6 |
                                      (pi.subnet_timeout & 0x1F));
  out[52] = pi.resp_time_value & 0x1F;
  out[53] = nibbles(pi.local_phy_errors, pi.overrun_errors);
  store_be16(&out[54], pi.max_credit_hint);
  store_be24(&out[57], pi.link_round_trip_latency);
  store_be16(&out[60], pi.capability_mask2);
  out[62] = nibbles(pi.link_speed_ext_active, pi.link_speed_ext_supported);
  out[63] = pi.link_speed_ext_enabled & 0x1F;
  return out;
}

PortInfo decode_port_info(const std::uint8_t* in64) {
  PortInfo pi;
  pi.m_key = load_be64(in64);
  pi.gid_prefix = load_be64(in64 + 8);
  pi.lid = load_be16(in64 + 16);
  pi.master_sm_lid = load_be16(in64 + 18);
  pi.capability_mask = load_be32(in64 + 20);
  pi.diag_code = load_be16(in64 + 24);
  pi.m_key_lease_period = load_be16(in64 + 26);
  pi.local_port_num = in64[28];
  pi.link_width_enabled = in64[29];
  pi.link_width_supported = in64[30];
  pi.link_width_active = in64[31];
  pi.link_speed_supported = in64[32] >> 4;
  pi.port_state = in64[32] & 0x0F;
  pi.port_physical_state = in64[33] >> 4;
  pi.link_down_default_state = in64[33] & 0x0F;
  pi.m_key_protect_bits = in64[34] >> 6;
  pi.lmc = in64[34] & 0x07;
  pi.link_speed_active = in64[35] >> 4;
  pi.link_speed_enabled = in64[35] & 0x0F;
  pi.neighbor_mtu = in64[36] >> 4;
  pi.master_sm_sl = in64[36] & 0x0F;
  pi.vl_cap = in64[37] >> 4;
  pi.init_type = in64[37] & 0x0F;
  pi.vl_high_limit = in64[38];
  pi.vl_arbitration_high_cap = in64[39];
  pi.vl_arbitration_low_cap = in64[40];
  pi.init_type_reply = in64[41] >> 4;
  pi.mtu_cap = in64[41] & 0x0F;
  pi.vl_stall_count = in64[42] >> 5;
  pi.hoq_life = in64[42] & 0x1F;
  pi.operational_vls = in64[43] >> 4;
  pi.partition_enforcement_inbound = in64[43] & 0x08;
  pi.partition_enforcement_outbound = in64[43] & 0x04;
  pi.filter_raw_inbound = in64[43] & 0x02;
  pi.filter_raw_outbound = in64[43] & 0x01;
  pi.m_key_violations = load_be16(in64 + 44);
  pi.p_key_violations = load_be16(in64 + 46);
  pi.q_key_violations = load_be16(in64 + 48);
  pi.guid_cap = in64[50];
  pi.client_reregister = in64[51] & 0x80;
  pi.multicast_pkey_trap_suppression_enabled = in64[51] & 0x40;
  pi.subnet_timeout = in64[51] & 0x1F;
  pi.resp_time_value = in64[52] & 0x1F;
  pi.local_phy_errors = in64[53] >> 4;
  pi.overrun_errors = in64[53] & 0x0F;
  pi.max_credit_hint = load_be16(in64 + 54);
  pi.link_round_trip_latency = load_be24(in64 + 57);
  pi.capability_mask2 = load_be16(in64 + 60);
  pi.link_speed_ext_active = in64[62] >> 4;
  pi.link_speed_ext_supported = in64[62] & 0x0F;
  pi.link_speed_ext_enabled = in64[63] & 0x1F;
  return pi;
}

}  // namespace ibfsim
