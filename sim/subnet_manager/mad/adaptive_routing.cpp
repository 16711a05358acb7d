#include "sim/subnet_manager/mad/adaptive_routing.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

ArPortMask ar_port_mask(const std::vector<PortNum>& ports) {
  ArPortMask m{};
  for (PortNum p : ports) m[kArGroupMaskBytes - 1 - p / 8] |= static_cast<std::uint8_t>(1u << (p % 8));
  return m;
}

std::vector<PortNum> ar_mask_ports(const ArPortMask& mask) {
  std::vector<PortNum> ports;
  for (unsigned p = 0; p < kArGroupMaskBytes * 8; ++p)
    if (mask[kArGroupMaskBytes - 1 - p / 8] >> (p % 8) & 1) ports.push_back(static_cast<PortNum>(p));
  return ports;
}

SmpData encode_ar_info(const AdaptiveRoutingInfo& info) {
  SmpData out{};
  out[0] = static_cast<std::uint8_t>(info.enable << 7 | info.fast_recovery << 6);
  out[1] = info.credit_levels;
  store_be16(&out[2], info.sl_mask);
  store_be16(&out[4], info.group_cap);
  store_be16(&out[6], info.group_top);
  store_be32(&out[8], info.flowlet_gap_ns);
  store_be16(&out[12], info.congestion_threshold);
  out[14] = info.flowlet_margin;
  std::copy(info.notify_ports.begin(), info.notify_ports.end(), out.begin() + 16);
  store_be32(&out[48], info.congestion_hold_ns);
  return out;
}

AdaptiveRoutingInfo decode_ar_info(const std::uint8_t* in64) {
  AdaptiveRoutingInfo info;
  info.enable = in64[0] >> 7 & 1;
  info.fast_recovery = in64[0] >> 6 & 1;
  info.credit_levels = in64[1];
  info.sl_mask = load_be16(in64 + 2);
  info.group_cap = load_be16(in64 + 4);
  info.group_top = load_be16(in64 + 6);
  info.flowlet_gap_ns = load_be32(in64 + 8);
  info.congestion_threshold = load_be16(in64 + 12);
  info.flowlet_margin = in64[14];
  std::copy_n(in64 + 16, info.notify_ports.size(), info.notify_ports.begin());
  info.congestion_hold_ns = load_be32(in64 + 48);
  return info;
}

SmpData encode_ar_group_table(const ArGroupTableBlock& block) {
  SmpData out{};
  for (std::size_t g = 0; g < kArGroupsPerBlock; ++g)
    std::copy(block.groups[g].begin(), block.groups[g].end(), out.begin() + static_cast<std::ptrdiff_t>(g * kArGroupMaskBytes));
  return out;
}

ArGroupTableBlock decode_ar_group_table(const std::uint8_t* in64) {
  ArGroupTableBlock block;
  for (std::size_t g = 0; g < kArGroupsPerBlock; ++g) std::copy_n(in64 + g * kArGroupMaskBytes, kArGroupMaskBytes, block.groups[g].begin());
  return block;
}

SmpData encode_ar_lft(const ArLftBlock& block) {
  SmpData out{};
  for (std::size_t i = 0; i < kArLftBlockEntries; ++i) store_be16(&out[2 * i], block.groups[i] & kArGroupMax);
  return out;
}

ArLftBlock decode_ar_lft(const std::uint8_t* in64) {
  ArLftBlock block;
  for (std::size_t i = 0; i < kArLftBlockEntries; ++i) block.groups[i] = load_be16(in64 + 2 * i) & kArGroupMax;
  return block;
}

}  // namespace ibfsim
