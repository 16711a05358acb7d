// An L3 switch's routing unit on RoCE v2 frames: the decision (route, ECMP, TTL, no route, not IP)
// from the first bytes only, and the rewrite for the next hop, after which the frame is still a
// good RoCE frame: the ICRC masks what routing changes.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/big_endian.h"
#include "sim/ethernet/ecmp.h"
#include "sim/ethernet/ethernet_fcs.h"
#include "sim/ethernet/l3_forwarding.h"
#include "sim/transport/roce/roce_frame.h"

using namespace ibfsim;

namespace {
RoceAddressing addressing(bool v6) {
  RoceAddressing a;
  a.dst_mac = {2, 0, 0, 0, 0x10, 1};  // the first switch's port
  a.src_mac = {2, 0, 0, 0, 0, 1};
  if (v6) a.vlan = VlanTag{3, false, 0};
  a.src_ip = v6 ? *parse_ip_address("fd00:1::1") : IpAddress::v4(10, 0, 1, 1);
  a.dst_ip = v6 ? *parse_ip_address("fd00:2::1") : IpAddress::v4(10, 0, 2, 1);
  a.ttl = 64;
  a.udp_src_port = roce_udp_source_port(0x11, 0x12);
  return a;
}
TransportHeaders send() {
  TransportHeaders h;
  h.bth.opcode = kOpcodeRcBase + op::kSendOnly;
  h.bth.dest_qp = 0x12;
  h.bth.psn = 1;
  return h;
}
}  // namespace

TEST_CASE("L3 forwarding of RoCE v2 frames: two routed hops keep the ICRC", "[transport][roce][routing]") {
  for (bool v6 : {false, true}) {
    INFO((v6 ? "IPv6, tagged" : "IPv4"));
    std::vector<std::uint8_t> f = build_roce_frame(addressing(v6), send(), 100, nullptr);
    REQUIRE(parse_roce_frame(f.data(), f.size()).ok());
    const std::size_t ip = v6 ? 18 : 14;
    // Decided on the Ethernet and IP headers and the UDP ports alone.
    CHECK(l3_decision_bytes(f.data(), f.size()) == (v6 ? 18 + 40 + 4 : 14 + 20 + 4));
    RouteTable sw1, sw2;
    sw1.add(*parse_ip_prefix(v6 ? "fd00:2::/64" : "10.0.2.0/24"), {5});
    sw1.add(*parse_ip_prefix(v6 ? "::/0" : "0.0.0.0/0"), {1});
    sw2.add(*parse_ip_prefix(v6 ? "fd00:2::1" : "10.0.2.1"), {3});
    const std::size_t head = l3_decision_bytes(f.data(), f.size());
    const L3Decision d1 = l3_decide(f.data(), head, sw1, 7);
    CHECK(d1.verdict == L3Verdict::kForward);
    CHECK(d1.port == 5);
    const MacAddress sw1_out = {2, 0, 0, 0, 0x10, 5}, sw2_in = {2, 0, 0, 0, 0x20, 1};
    l3_rewrite(f, sw1_out, sw2_in);
    CHECK(MacAddress{f[0], f[1], f[2], f[3], f[4], f[5]} == sw2_in);
    CHECK(MacAddress{f[6], f[7], f[8], f[9], f[10], f[11]} == sw1_out);
    CHECK((v6 ? f[ip + 7] : f[ip + 8]) == 63);
    CHECK(ethernet_fcs_ok(f.data(), f.size()));
    const L3Decision d2 = l3_decide(f.data(), f.size(), sw2, 8);
    CHECK(d2.verdict == L3Verdict::kForward);
    CHECK(d2.port == 3);
    l3_rewrite(f, {2, 0, 0, 0, 0x20, 3}, {2, 0, 0, 0, 0, 2});
    CHECK((v6 ? f[ip + 7] : f[ip + 8]) == 62);
    const ParsedRoceFrame p = parse_roce_frame(f.data(), f.size());
    INFO(roce_frame_error_name(p.error));
    REQUIRE(p.ok());  // FCS, IP checksum and ICRC all good
    CHECK(p.payload_len == 100);
    CHECK((v6 ? p.ipv6.hop_lmt : p.ipv4.ttl) == 62);
  }
}

TEST_CASE("L3 forwarding drops for no route, TTL 1 and not IP, and picks among next hops by the 5-tuple", "[transport][roce][routing]") {
  std::vector<std::uint8_t> f = build_roce_frame(addressing(false), send(), 0, nullptr);
  RouteTable none;
  CHECK(l3_decide(f.data(), f.size(), none, 0).verdict == L3Verdict::kNoRoute);
  RouteTable ecmp;
  ecmp.add(*parse_ip_prefix("10.0.2.0/24"), {2, 3, 4, 5});
  const L3Decision d = l3_decide(f.data(), f.size(), ecmp, 0xABCD);
  CHECK(d.verdict == L3Verdict::kForward);
  CHECK(d.port == ecmp_select({2, 3, 4, 5}, *five_tuple_of(f.data(), f.size()), 0xABCD));
  RoceAddressing a = addressing(false);
  a.ttl = 1;
  const auto last_hop = build_roce_frame(a, send(), 0, nullptr);
  CHECK(l3_decide(last_hop.data(), last_hop.size(), ecmp, 0).verdict == L3Verdict::kTtlExpired);
  std::vector<std::uint8_t> arp(64, 0);
  store_be16(arp.data() + 12, 0x0806);
  CHECK(l3_decide(arp.data(), arp.size(), ecmp, 0).verdict == L3Verdict::kNotIp);
  CHECK(l3_decision_bytes(arp.data(), arp.size()) == 18);
  CHECK(std::string(l3_verdict_name(L3Verdict::kTtlExpired)) == "ttl_expired");
}
