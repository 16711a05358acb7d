#include "sim/ethernet/ethernet_header.h"

#include <fmt/format.h>

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

std::uint16_t encode_vlan_tci(const VlanTag& tag) {
  return static_cast<std::uint16_t>((tag.pcp & 0x07) << 13 | tag.dei << 12 | (tag.vid & 0x0FFF));
}

VlanTag decode_vlan_tci(std::uint16_t tci) {
  return VlanTag{static_cast<std::uint8_t>(tci >> 13), static_cast<bool>(tci & 0x1000),
                 static_cast<std::uint16_t>(tci & 0x0FFF)};
}

std::size_t encode_ethernet_header(const EthernetHeader& h, std::uint8_t* out) {
  std::copy(h.dst.begin(), h.dst.end(), out);
  std::copy(h.src.begin(), h.src.end(), out + 6);
  std::size_t at = 12;
  if (h.vlan) {
    store_be16(out + at, kEtherTypeVlan);
    store_be16(out + at + 2, encode_vlan_tci(*h.vlan));
    at += kVlanTagBytes;
  }
  store_be16(out + at, h.ether_type);
  return at + 2;
}

std::optional<EthernetHeader> decode_ethernet_header(const std::uint8_t* in, std::size_t len) {
  if (len < kEthernetHeaderBytes) return std::nullopt;
  EthernetHeader h;
  std::copy(in, in + 6, h.dst.begin());
  std::copy(in + 6, in + 12, h.src.begin());
  std::size_t at = 12;
  if (load_be16(in + at) == kEtherTypeVlan) {
    if (len < kEthernetHeaderBytes + kVlanTagBytes) return std::nullopt;
    h.vlan = decode_vlan_tci(load_be16(in + at + 2));
    at += kVlanTagBytes;
  }
  h.ether_type = load_be16(in + at);
  return h;
}

std::string mac_text(const MacAddress& m) {
  return fmt::format("{:02x}:{:02x}:{:02x}:{:02x}:{:02x}:{:02x}", m[0], m[1], m[2], m[3], m[4], m[5]);
}

}  // namespace ibfsim
