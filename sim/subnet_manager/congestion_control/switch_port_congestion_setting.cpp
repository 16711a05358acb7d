#include "sim/subnet_manager/congestion_control/switch_port_congestion_setting.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

CcMgmtData encode_switch_port_congestion_setting(const SwitchPortCongestionSetting& s) {
  CcMgmtData d{};
  for (std::size_t i = 0; i < s.size(); ++i) {
    std::uint8_t* e = d.data() + 4 * i;
    e[0] = static_cast<std::uint8_t>(s[i].valid << 7 | s[i].credit_starvation << 6 | (s[i].threshold & 0x0F));
    e[1] = s[i].packet_size;
    store_be16(e + 2, s[i].marking_rate);
  }
  return d;
}

SwitchPortCongestionSetting decode_switch_port_congestion_setting(const std::uint8_t* data) {
  SwitchPortCongestionSetting s{};
  for (std::size_t i = 0; i < s.size(); ++i) {
    const std::uint8_t* e = data + 4 * i;
    s[i].valid = e[0] & 0x80;
    s[i].credit_starvation = e[0] & 0x40;
    s[i].threshold = e[0] & 0x0F;
    s[i].packet_size = e[1];
    s[i].marking_rate = load_be16(e + 2);
  }
  return s;
}

}  // namespace ibfsim
