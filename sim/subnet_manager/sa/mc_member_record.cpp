#include "sim/subnet_manager/sa/mc_member_record.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_mc_member_record(const McMemberRecord& r, std::uint8_t* out) {
  std::copy(r.mgid.begin(), r.mgid.end(), out);
  std::copy(r.port_gid.begin(), r.port_gid.end(), out + 16);
  store_be32(out + 32, r.q_key);
  store_be16(out + 36, r.mlid);
  out[38] = static_cast<std::uint8_t>((r.mtu_selector & 3) << 6 | (r.mtu & 0x3F));
  out[39] = r.tclass;
  store_be16(out + 40, r.p_key);
  out[42] = static_cast<std::uint8_t>((r.rate_selector & 3) << 6 | (r.rate & 0x3F));
  out[43] = static_cast<std::uint8_t>((r.packet_life_time_selector & 3) << 6 | (r.packet_life_time & 0x3F));
  store_be32(out + 44, static_cast<std::uint32_t>(r.sl & 0xF) << 28 | (r.flow_label & 0xFFFFF) << 8 | r.hop_limit);
  out[48] = static_cast<std::uint8_t>((r.scope & 0xF) << 4 | (r.join_state & 0xF));
  out[49] = r.proxy_join ? 0x80 : 0;
  out[50] = out[51] = 0;
}

SaData encode_mc_member_record(const McMemberRecord& r) {
  SaData d{};
  encode_mc_member_record(r, d.data());
  return d;
}

McMemberRecord decode_mc_member_record(const std::uint8_t* in) {
  McMemberRecord r;
  std::copy(in, in + 16, r.mgid.begin());
  std::copy(in + 16, in + 32, r.port_gid.begin());
  r.q_key = load_be32(in + 32);
  r.mlid = load_be16(in + 36);
  r.mtu_selector = in[38] >> 6;
  r.mtu = in[38] & 0x3F;
  r.tclass = in[39];
  r.p_key = load_be16(in + 40);
  r.rate_selector = in[42] >> 6;
  r.rate = in[42] & 0x3F;
  r.packet_life_time_selector = in[43] >> 6;
  r.packet_life_time = in[43] & 0x3F;
  const std::uint32_t w = load_be32(in + 44);
  r.sl = w >> 28;
  r.flow_label = (w >> 8) & 0xFFFFF;
  r.hop_limit = w & 0xFF;
  r.scope = in[48] >> 4;
  r.join_state = in[48] & 0xF;
  r.proxy_join = in[49] & 0x80;
  return r;
}

}  // namespace ibfsim
