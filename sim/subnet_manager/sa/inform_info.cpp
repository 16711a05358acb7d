#include "sim/subnet_manager/sa/inform_info.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

bool InformInfo::operator==(const InformInfo& o) const {
  return gid == o.gid && lid_range_begin == o.lid_range_begin && lid_range_end == o.lid_range_end &&
         is_generic == o.is_generic && subscribe == o.subscribe && type == o.type &&
         trap_number_or_device == o.trap_number_or_device && qpn == o.qpn &&
         resp_time_value == o.resp_time_value && producer_type_or_vendor == o.producer_type_or_vendor;
}

std::array<std::uint8_t, kInformInfoBytes> encode_inform_info(const InformInfo& i) {
  std::array<std::uint8_t, kInformInfoBytes> out{};
  std::copy(i.gid.begin(), i.gid.end(), out.begin());
  store_be16(&out[16], i.lid_range_begin);
  store_be16(&out[18], i.lid_range_end);
  out[22] = i.is_generic ? 1 : 0;
  out[23] = i.subscribe ? 1 : 0;
  store_be16(&out[24], i.type);
  store_be16(&out[26], i.trap_number_or_device);
  store_be32(&out[28], (i.qpn & 0xFFFFFF) << 8 | (i.resp_time_value & 0x1F));
  store_be24(&out[33], i.producer_type_or_vendor);
  return out;
}

InformInfo decode_inform_info(const std::uint8_t* in) {
  InformInfo i;
  std::copy_n(in, 16, i.gid.begin());
  i.lid_range_begin = load_be16(in + 16);
  i.lid_range_end = load_be16(in + 18);
  i.is_generic = in[22] != 0;
  i.subscribe = in[23] != 0;
  i.type = load_be16(in + 24);
  i.trap_number_or_device = load_be16(in + 26);
  const std::uint32_t q = load_be32(in + 28);
  i.qpn = q >> 8;
  i.resp_time_value = q & 0x1F;
  i.producer_type_or_vendor = load_be24(in + 33);
  return i;
}

bool inform_matches(const InformInfo& i, const Notice& n, const Gid& issuer_gid) {
  if (i.gid != Gid{}) {
    if (i.gid != issuer_gid) return false;
  } else if (i.lid_range_begin != 0xFFFF) {
    if (n.issuer_lid < i.lid_range_begin || n.issuer_lid > i.lid_range_end) return false;
  }
  if (i.is_generic != n.is_generic) return false;
  if (i.type != 0xFFFF && i.type != n.type) return false;
  if (i.trap_number_or_device != kInformAnyTrap && i.trap_number_or_device != n.trap_number_or_device)
    return false;
  return i.producer_type_or_vendor == kInformAnyProducer || i.producer_type_or_vendor == n.producer_type_or_vendor;
}

bool inform_info_valid(const InformInfo& i) {
  if (i.lid_range_begin != 0xFFFF && i.lid_range_begin > i.lid_range_end) return false;
  return i.qpn == 1;
}

}  // namespace ibfsim
