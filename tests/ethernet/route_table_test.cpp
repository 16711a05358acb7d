// L3 forwarding: prefixes parse strictly, the longest matching prefix wins (host routes over
// subnets over the default route), IPv4 and IPv6 apart, and ECMP hashes the 5-tuple exactly as
// documented and keeps a flow on one next hop.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/ethernet/ecmp.h"
#include "sim/ethernet/ip_prefix.h"
#include "sim/ethernet/route_table.h"

using namespace ibfsim;

namespace {
IpPrefix prefix(const char* text) {
  const auto p = parse_ip_prefix(text);
  REQUIRE(p);
  return *p;
}
IpAddress ip(const char* text) { return *parse_ip_address(text); }

std::uint32_t ref_crc32(const std::vector<std::uint8_t>& bytes) {
  std::uint32_t reg = 0xFFFFFFFF;
  for (std::uint8_t b : bytes) {
    reg ^= b;
    for (int i = 0; i < 8; ++i) reg = (reg >> 1) ^ ((reg & 1u) ? 0xEDB88320u : 0u);
  }
  return ~reg;
}
}  // namespace

TEST_CASE("IP prefixes: CIDR text, host routes, no bits after the length", "[ethernet][routing]") {
  CHECK(prefix("10.0.1.0/24").length == 24);
  CHECK(prefix("10.0.1.0/24").address == IpAddress::v4(10, 0, 1, 0));
  CHECK(prefix("10.0.1.7").length == 32);  // a host route
  CHECK(prefix("0.0.0.0/0").length == 0);
  CHECK(prefix("fd00:0:0:1::/64").length == 64);
  CHECK(prefix("fd00::7").length == 128);
  CHECK(prefix_text(prefix("10.0.1.0/24")) == "10.0.1.0/24");
  CHECK(prefix_text(prefix("fd00:0:0:1::/64")) == "fd00:0:0:1::/64");
  CHECK_FALSE(parse_ip_prefix("10.0.1.7/24"));   // host bits set
  CHECK_FALSE(parse_ip_prefix("10.0.1.0/33"));
  CHECK_FALSE(parse_ip_prefix("10.0.1.0/"));
  CHECK_FALSE(parse_ip_prefix("10.0.1.0/2x"));
  CHECK_FALSE(parse_ip_prefix("fd00::/129"));
  CHECK_FALSE(parse_ip_prefix("leaf1"));
  CHECK(mask_ip(IpAddress::v4(10, 255, 255, 255), 12) == IpAddress::v4(10, 240, 0, 0));
  CHECK(prefix("10.240.0.0/12").contains(IpAddress::v4(10, 255, 1, 2)));
  CHECK_FALSE(prefix("10.240.0.0/12").contains(IpAddress::v4(10, 224, 1, 2)));
  CHECK_FALSE(prefix("0.0.0.0/0").contains(ip("fd00::1")));  // another version
}

TEST_CASE("routes: the longest matching prefix wins, per IP version", "[ethernet][routing]") {
  RouteTable t;
  CHECK(t.lookup(IpAddress::v4(10, 0, 1, 7)) == nullptr);
  t.add(prefix("0.0.0.0/0"), {1, 2});
  t.add(prefix("10.0.0.0/16"), {3});
  t.add(prefix("10.0.1.0/24"), {4, 5, 6});
  t.add(prefix("10.0.1.7"), {7});
  t.add(prefix("fd00::/16"), {8});
  CHECK(t.size() == 5);
  CHECK(*t.lookup(IpAddress::v4(10, 0, 1, 7)) == NextHops{7});
  CHECK(*t.lookup(IpAddress::v4(10, 0, 1, 8)) == NextHops{4, 5, 6});
  CHECK(*t.lookup(IpAddress::v4(10, 0, 2, 8)) == NextHops{3});
  CHECK(*t.lookup(IpAddress::v4(192, 168, 0, 1)) == NextHops{1, 2});
  CHECK(*t.lookup(ip("fd00:1::5")) == NextHops{8});
  CHECK(t.lookup(ip("fe80::1")) == nullptr);  // the IPv4 default does not cover IPv6
  t.add(prefix("10.0.1.0/24"), {9});          // replaces
  CHECK(*t.lookup(IpAddress::v4(10, 0, 1, 8)) == NextHops{9});
  CHECK(t.size() == 5);
}

TEST_CASE("ECMP: CRC-32 of the seed and the 5-tuple, next hop = hash mod n", "[ethernet][routing][ecmp]") {
  const FiveTuple t{IpAddress::v4(10, 0, 0, 1), IpAddress::v4(10, 0, 1, 2), 17, 0xC132, 4791};
  // By hand: 12 34 56 78 | 0a 00 00 01 | 0a 00 01 02 | 11 | c1 32 | 12 b7.
  const std::vector<std::uint8_t> bytes = {0x12, 0x34, 0x56, 0x78, 0x0a, 0x00, 0x00, 0x01, 0x0a,
                                           0x00, 0x01, 0x02, 0x11, 0xc1, 0x32, 0x12, 0xb7};
  const std::uint32_t h = ref_crc32(bytes);
  CHECK(ecmp_hash(t, 0x12345678) == h);
  const NextHops hops = {11, 12, 13};
  CHECK(ecmp_select(hops, t, 0x12345678) == hops[h % 3]);
  // IPv6: 16-byte addresses.
  const FiveTuple t6{ip("fd00::1"), ip("fd00::2"), 17, 1, 4791};
  std::vector<std::uint8_t> b6 = {0, 0, 0, 7};
  for (const IpAddress& a : {t6.src, t6.dst}) b6.insert(b6.end(), a.bytes.begin(), a.bytes.end());
  b6.insert(b6.end(), {0x11, 0x00, 0x01, 0x12, 0xb7});
  CHECK(ecmp_hash(t6, 7) == ref_crc32(b6));
}
