#include "sim/subnet_manager/congestion_control/ca_congestion_setting.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

CcMgmtData encode_ca_congestion_setting(const CaCongestionSetting& s) {
  CcMgmtData d{};
  store_be16(d.data(), s.port_control);
  store_be16(d.data() + 2, s.control_map);
  for (std::size_t i = 0; i < s.entries.size(); ++i) {
    std::uint8_t* e = d.data() + 4 + 8 * i;
    store_be16(e, s.entries[i].ccti_timer);
    e[2] = s.entries[i].ccti_increase;
    e[3] = s.entries[i].trigger_threshold;
    e[4] = s.entries[i].ccti_min;
  }
  return d;
}

CaCongestionSetting decode_ca_congestion_setting(const std::uint8_t* data) {
  CaCongestionSetting s;
  s.port_control = load_be16(data);
  s.control_map = load_be16(data + 2);
  for (std::size_t i = 0; i < s.entries.size(); ++i) {
    const std::uint8_t* e = data + 4 + 8 * i;
    s.entries[i].ccti_timer = load_be16(e);
    s.entries[i].ccti_increase = e[2];
    s.entries[i].trigger_threshold = e[3];
    s.entries[i].ccti_min = e[4];
  }
  return s;
}

}  // namespace ibfsim
