// Ethernet II header and 802.1Q tag: exact bytes, round trips, short input.
#include "sim/ethernet/ethernet_header.h"

#include <catch2/catch.hpp>

#include <vector>

using namespace ibfsim;

namespace {
const MacAddress kDst = {0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2};
const MacAddress kSrc = {0x7c, 0xfe, 0x90, 0x64, 0x3b, 0x32};
}  // namespace

TEST_CASE("Ethernet II header: MACs then the EtherType, 14 bytes", "[ethernet]") {
  EthernetHeader h{kDst, kSrc, std::nullopt, kEtherTypeIpv4};
  std::vector<std::uint8_t> b(18, 0xAA);
  CHECK(encode_ethernet_header(h, b.data()) == 14);
  CHECK(h.bytes() == 14);
  CHECK(b == std::vector<std::uint8_t>{0xe4, 0x1d, 0x2d, 0xab, 0x2b, 0xc2, 0x7c, 0xfe, 0x90,
                                       0x64, 0x3b, 0x32, 0x08, 0x00, 0xAA, 0xAA, 0xAA, 0xAA});
  const auto d = decode_ethernet_header(b.data(), 14);
  REQUIRE(d);
  CHECK(d->dst == kDst);
  CHECK(d->src == kSrc);
  CHECK_FALSE(d->vlan);
  CHECK(d->ether_type == kEtherTypeIpv4);
  CHECK_FALSE(decode_ethernet_header(b.data(), 13));
  CHECK(mac_text(kSrc) == "7c:fe:90:64:3b:32");
}

TEST_CASE("802.1Q tag: TPID 0x8100, TCI = PCP | DEI | VID, then the EtherType", "[ethernet]") {
  CHECK(encode_vlan_tci({5, true, 0x123}) == 0xB123);  // 101 1 0001 0010 0011
  CHECK(encode_vlan_tci({3, false, 0}) == 0x6000);     // priority-only tag
  CHECK(encode_vlan_tci({9, false, 0x1FFF}) == 0x2FFF);  // masked to 3 and 12 bits
  const VlanTag t = decode_vlan_tci(0xB123);
  CHECK(t.pcp == 5);
  CHECK(t.dei);
  CHECK(t.vid == 0x123);

  EthernetHeader h{kDst, kSrc, VlanTag{3, false, 100}, kEtherTypeIpv6};
  std::vector<std::uint8_t> b(18);
  CHECK(encode_ethernet_header(h, b.data()) == 18);
  CHECK(h.bytes() == 18);
  CHECK(std::vector<std::uint8_t>(b.begin() + 12, b.end()) ==
        std::vector<std::uint8_t>{0x81, 0x00, 0x60, 0x64, 0x86, 0xdd});
  const auto d = decode_ethernet_header(b.data(), 18);
  REQUIRE(d);
  REQUIRE(d->vlan);
  CHECK(d->vlan->pcp == 3);
  CHECK_FALSE(d->vlan->dei);
  CHECK(d->vlan->vid == 100);
  CHECK(d->ether_type == kEtherTypeIpv6);
  CHECK_FALSE(decode_ethernet_header(b.data(), 17));  // the tag promises 4 more bytes
}
