#include "sim/subnet_manager/congestion_control/switch_congestion_setting.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_port_mask(const std::bitset<256>& mask, std::uint8_t* out32) {
  for (std::size_t byte = 0; byte < 32; ++byte) {
    std::uint8_t v = 0;
    for (unsigned bit = 0; bit < 8; ++bit)
      if (mask.test((31 - byte) * 8 + bit)) v = static_cast<std::uint8_t>(v | (1u << bit));
    out32[byte] = v;
  }
}

std::bitset<256> decode_port_mask(const std::uint8_t* in32) {
  std::bitset<256> mask;
  for (std::size_t byte = 0; byte < 32; ++byte)
    for (unsigned bit = 0; bit < 8; ++bit)
      if (in32[byte] >> bit & 1) mask.set((31 - byte) * 8 + bit);
  return mask;
}

CcMgmtData encode_switch_congestion_setting(const SwitchCongestionSetting& s) {
  CcMgmtData d{};
  store_be32(d.data(), s.control_map);
  encode_port_mask(s.victim_mask, d.data() + 4);
  encode_port_mask(s.credit_mask, d.data() + 36);
  d[68] = static_cast<std::uint8_t>((s.threshold & 0x0F) << 4);
  d[69] = s.packet_size;
  store_be16(d.data() + 70, static_cast<std::uint16_t>((s.cs_threshold & 0x0F) << 12));
  store_be16(d.data() + 72, s.cs_return_delay);
  store_be16(d.data() + 74, s.marking_rate);
  return d;
}

SwitchCongestionSetting decode_switch_congestion_setting(const std::uint8_t* data) {
  SwitchCongestionSetting s;
  s.control_map = load_be32(data);
  s.victim_mask = decode_port_mask(data + 4);
  s.credit_mask = decode_port_mask(data + 36);
  s.threshold = data[68] >> 4;
  s.packet_size = data[69];
  s.cs_threshold = static_cast<std::uint8_t>(load_be16(data + 70) >> 12);
  s.cs_return_delay = load_be16(data + 72);
  s.marking_rate = load_be16(data + 74);
  return s;
}

}  // namespace ibfsim
