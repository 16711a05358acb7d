#include "sim/subnet_manager/mad/notice.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

SmpData encode_notice(const Notice& n) {
  SmpData out{};
  out[0] = static_cast<std::uint8_t>(n.is_generic << 7 | (n.type & 0x7F));
  store_be24(&out[1], n.producer_type_or_vendor);
  store_be16(&out[4], n.trap_number_or_device);
  store_be16(&out[6], n.issuer_lid);
  store_be16(&out[8], static_cast<std::uint16_t>(n.toggle << 15 | (n.count & 0x7FFF)));
  std::copy(n.data_details.begin(), n.data_details.end(), out.begin() + 10);
  return out;
}

Notice decode_notice(const std::uint8_t* in64) {
  Notice n;
  n.is_generic = in64[0] >> 7;
  n.type = in64[0] & 0x7F;
  n.producer_type_or_vendor = load_be24(in64 + 1);
  n.trap_number_or_device = load_be16(in64 + 4);
  n.issuer_lid = load_be16(in64 + 6);
  const std::uint16_t tc = load_be16(in64 + 8);
  n.toggle = tc >> 15;
  n.count = tc & 0x7FFF;
  std::copy_n(in64 + 10, n.data_details.size(), n.data_details.begin());
  return n;
}

Notice make_trap_128(Lid switch_lid) {
  Notice n;
  n.producer_type_or_vendor = kNoticeProducerSwitch;
  n.trap_number_or_device = kTrapLinkStateChange;
  n.issuer_lid = switch_lid;
  store_be16(n.data_details.data(), switch_lid);
  return n;
}

}  // namespace ibfsim
