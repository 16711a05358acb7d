// The Internet checksum, the IPv4 and IPv6 headers with DSCP/ECN, the UDP header and checksum:
// exact bytes, against a RoCE CNP a ConnectX-4 Lx sent (captured, so its IPv4 checksum is a
// NIC's) and RFC 1071's worked example.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/big_endian.h"
#include "sim/ethernet/internet_checksum.h"
#include "sim/ethernet/ip_address.h"
#include "sim/ethernet/ip_traffic_class.h"
#include "sim/ethernet/ipv4_header.h"
#include "sim/ethernet/ipv6_header.h"
#include "sim/ethernet/udp_header.h"

using namespace ibfsim;

TEST_CASE("Internet checksum: RFC 1071's example, and pieces of odd length sum as one buffer",
          "[ethernet][checksum]") {
  // RFC 1071 section 3: the words 0001 f203 f4f5 f6f7 sum to ddf2 (carries folded): checksum 220d.
  const std::vector<std::uint8_t> w = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
  CHECK(internet_checksum(w.data(), w.size()) == 0x220d);
  InternetSum s;
  s.add(w.data(), 3);  // ends inside a word
  s.add(w.data() + 3, 1);
  s.add(w.data() + 4, 4);
  CHECK(s.checksum() == 0x220d);
  // Zeros only move the word boundary: 00 01 | 1 zero | f2 03 ... sums as 0001 00f2 03..
  const std::vector<std::uint8_t> z = {0x00, 0x01, 0x00, 0xf2, 0x03};
  InternetSum t;
  t.add(w.data(), 2);
  t.add_zeros(1);
  t.add(w.data() + 2, 2);
  CHECK(t.checksum() == internet_checksum(z.data(), z.size()));
  // An odd last byte is the high byte of a word.
  const std::vector<std::uint8_t> odd = {0x12};
  CHECK(internet_checksum(odd.data(), 1) == static_cast<std::uint16_t>(~0x1200));
}

TEST_CASE("IPv4 header: exact bytes of a NIC's RoCE CNP, DSCP 48 ECN ECT(0), its checksum",
          "[ethernet][ipv4]") {
  // Captured from a ConnectX-4 Lx: 45c2 003c 718c 4000 4011 9161 0a00 1101 0a00 1201.
  const std::vector<std::uint8_t> nic = {0x45, 0xc2, 0x00, 0x3c, 0x71, 0x8c, 0x40, 0x00, 0x40, 0x11,
                                         0x91, 0x61, 0x0a, 0x00, 0x11, 0x01, 0x0a, 0x00, 0x12, 0x01};
  Ipv4Header h;
  h.dscp = 48;
  h.ecn = ecn::kEct0;
  h.total_length = 60;
  h.identification = 0x718c;
  h.ttl = 64;
  h.src = {10, 0, 17, 1};
  h.dst = {10, 0, 18, 1};
  std::vector<std::uint8_t> b(20);
  encode_ipv4_header(h, b.data());
  CHECK(b == nic);
  CHECK(ipv4_checksum_ok(b.data()));
  const Ipv4Header d = decode_ipv4_header(nic.data());
  CHECK(d.version == 4);
  CHECK(d.ihl == 5);
  CHECK(d.dscp == 48);
  CHECK(d.ecn == ecn::kEct0);
  CHECK(d.total_length == 60);
  CHECK(d.identification == 0x718c);
  CHECK(d.dont_fragment);
  CHECK_FALSE(d.more_fragments);
  CHECK(d.fragment_offset == 0);
  CHECK(d.ttl == 64);
  CHECK(d.protocol == kIpProtocolUdp);
  CHECK(d.checksum == 0x9161);
  CHECK(d.src == h.src);
  CHECK(d.dst == h.dst);

  // A switch marks CE and decrements TTL: the checksum follows.
  set_ipv4_ecn(b.data(), ecn::kCe);
  CHECK(b[1] == 0xc3);
  CHECK(ipv4_ecn(b.data()) == ecn::kCe);
  CHECK(ipv4_dscp(b.data()) == 48);
  CHECK(ipv4_checksum_ok(b.data()));
  CHECK(load_be16(b.data() + 10) == 0x9160);  // one more in the ToS byte, one less in the checksum
  set_ipv4_ttl(b.data(), 63);
  CHECK(ipv4_ttl(b.data()) == 63);
  CHECK(ipv4_checksum_ok(b.data()));
  b[15] ^= 1;
  CHECK_FALSE(ipv4_checksum_ok(b.data()));
}

TEST_CASE("IPv6 header: version 6, traffic class = DSCP | ECN, 20-bit flow label", "[ethernet][ipv6]") {
  Ipv6Header h;
  h.ipver = kIpv6Version;
  h.tclass = traffic_class_byte(26, ecn::kEct1);  // 0x69
  h.flow_label = 0xAC3E3;
  h.pay_len = 0x0123;
  h.nxt_hdr = kIpProtocolUdp;
  h.hop_lmt = 64;
  h.sgid = parse_ip_address("fd00::1")->bytes;
  h.dgid = parse_ip_address("fd00::2")->bytes;
  std::vector<std::uint8_t> b(40);
  encode_ipv6_header(h, b.data());
  CHECK(std::vector<std::uint8_t>(b.begin(), b.begin() + 8) ==
        std::vector<std::uint8_t>{0x66, 0x9a, 0xc3, 0xe3, 0x01, 0x23, 0x11, 0x40});
  CHECK(b[8] == 0xfd);
  CHECK(b[23] == 0x01);
  CHECK(b[24] == 0xfd);
  CHECK(b[39] == 0x02);
  CHECK(ipv6_traffic_class(b.data()) == 0x69);
  CHECK(ipv6_ecn(b.data()) == ecn::kEct1);
  set_ipv6_ecn(b.data(), ecn::kCe);
  CHECK(ipv6_traffic_class(b.data()) == 0x6b);
  CHECK(b[0] == 0x66);
  CHECK(b[2] == 0xc3);  // the flow label is untouched
  set_ipv6_hop_limit(b.data(), 63);
  CHECK(ipv6_hop_limit(b.data()) == 63);
  const Ipv6Header d = decode_ipv6_header(b.data());
  CHECK(d.ipver == 6);
  CHECK(d.flow_label == 0xAC3E3);
  CHECK(d.pay_len == 0x0123);
  CHECK(d.nxt_hdr == 17);
}

TEST_CASE("IP addresses parse and print as Wireshark does", "[ethernet]") {
  const auto v4 = parse_ip_address("192.168.0.7");
  REQUIRE(v4);
  CHECK(v4->version == IpVersion::kV4);
  CHECK(*v4 == IpAddress::v4(192, 168, 0, 7));
  CHECK(v4->size() == 4);
  CHECK(ip_text(*v4) == "192.168.0.7");
  const auto v6 = parse_ip_address("fd00:0:0::a:1");
  REQUIRE(v6);
  CHECK(v6->version == IpVersion::kV6);
  CHECK(v6->size() == 16);
  CHECK(ip_text(*v6) == "fd00::a:1");
  CHECK_FALSE(parse_ip_address("10.0.0.256"));
  CHECK_FALSE(parse_ip_address("h1"));
}

TEST_CASE("UDP header and checksum over the IPv4 and IPv6 pseudo-headers", "[ethernet][udp]") {
  const UdpHeader h{0xC3C8, 4791, 44, 0};
  std::vector<std::uint8_t> b(8);
  encode_udp_header(h, b.data());
  CHECK(b == std::vector<std::uint8_t>{0xc3, 0xc8, 0x12, 0xb7, 0x00, 0x2c, 0x00, 0x00});
  const UdpHeader d = decode_udp_header(b.data());
  CHECK(d.src_port == 0xC3C8);
  CHECK(d.dst_port == 4791);
  CHECK(d.length == 44);

  // By hand: 10.0.0.1 -> 10.0.0.2, ports 1 -> 2, length 10, data "ab":
  // 0a00 + 0001 + 0a00 + 0002 + 0011 + 000a + 0001 + 0002 + 000a + 6162 = 0x758d; ~ = 0x8a72.
  const std::vector<std::uint8_t> u = {0x00, 0x01, 0x00, 0x02, 0x00, 0x0a, 0xff, 0xff};
  const std::vector<std::uint8_t> data = {0x61, 0x62};
  CHECK(udp_checksum(IpAddress::v4(10, 0, 0, 1), IpAddress::v4(10, 0, 0, 2), u.data(),
                     {ByteRun{data.data(), 2}}) == 0x8a72);
  // IPv6 fd00::1 -> fd00::2: the addresses sum to fd00 + 0001 + fd00 + 0002 more than IPv4's
  // 0a00 + 0001 + 0a00 + 0002, the rest is the same words.
  const std::uint32_t v6sum = 0x758d - 0x1403 + 0x1fa03;  // 0x1fa03 = fd00 + 0001 + fd00 + 0002
  const std::uint16_t v6 = static_cast<std::uint16_t>(~((v6sum & 0xFFFF) + (v6sum >> 16)) & 0xFFFF);
  CHECK(udp_checksum(*parse_ip_address("fd00::1"), *parse_ip_address("fd00::2"), u.data(),
                     {ByteRun{data.data(), 2}}) == v6);
  // Elided zeros add nothing but shift later bytes by their parity.
  const std::vector<std::uint8_t> with_zero = {0x00, 0x61, 0x62};
  CHECK(udp_checksum(IpAddress::v4(10, 0, 0, 1), IpAddress::v4(10, 0, 0, 2), u.data(),
                     {ByteRun{nullptr, 1}, ByteRun{data.data(), 2}}) ==
        udp_checksum(IpAddress::v4(10, 0, 0, 1), IpAddress::v4(10, 0, 0, 2), u.data(),
                     {ByteRun{with_zero.data(), 3}}));
}
