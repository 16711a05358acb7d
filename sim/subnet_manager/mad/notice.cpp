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

Notice make_trap_256(Lid issuer_lid, std::uint32_t producer, const Smp& bad) {
  Notice n;
  n.type = kNoticeTypeSecurity;
  n.producer_type_or_vendor = producer;
  n.trap_number_or_device = kTrapBadMKey;
  n.issuer_lid = issuer_lid;
  std::uint8_t* d = n.data_details.data();
  store_be16(d + 2, issuer_lid);
  d[6] = bad.method;
  store_be16(d + 8, bad.attribute_id);
  store_be32(d + 10, bad.attribute_modifier);
  store_be64(d + 14, bad.m_key);
  if (bad.directed()) {
    constexpr unsigned kPathRoom = 30;
    const unsigned hops = std::min<unsigned>(bad.hop_count, 63);
    store_be16(d + 4, bad.dr_slid);
    d[23] = static_cast<std::uint8_t>(0x80 | (hops > kPathRoom ? 0x40 : 0) | hops);
    for (unsigned i = 1; i <= hops && i <= kPathRoom; ++i) d[24 + i - 1] = bad.return_path[i];
  }
  return n;
}

}  // namespace ibfsim
