// ECMP over RoCE v2 frames: the 5-tuple read from a frame's bytes, each QP pair's frames on one
// next hop, QP pairs spread by their UDP source port (roce_udp_port.h), seeds that differ.
#include <catch2/catch.hpp>

#include <map>
#include <vector>

#include "sim/core/big_endian.h"
#include "sim/ethernet/ecmp.h"
#include "sim/transport/roce/roce_frame.h"

using namespace ibfsim;

TEST_CASE("ECMP keeps each QP pair's frames on one next hop and spreads QP pairs", "[transport][roce][ecmp]") {
  const NextHops hops = {1, 2, 3, 4};
  std::map<PortNum, int> per_hop;
  for (Qpn q = 0x100; q < 0x100 + 4096; ++q) {
    RoceAddressing a;
    a.src_ip = IpAddress::v4(10, 0, 0, 1);
    a.dst_ip = IpAddress::v4(10, 0, 1, 2);
    a.udp_src_port = roce_udp_source_port(q, 0x54321);
    TransportHeaders h;
    h.bth.opcode = kOpcodeRcBase + op::kSendOnly;
    h.bth.psn = q;  // differs per frame, not part of the tuple
    const auto f = build_roce_frame(a, h, 0, nullptr);
    const auto t = five_tuple_of(f.data(), f.size());
    REQUIRE(t);
    CHECK(t->src_port == a.udp_src_port);
    CHECK(t->dst_port == kRoceV2UdpPort);
    CHECK(t->protocol == kIpProtocolUdp);
    CHECK(t->dst == a.dst_ip);
    ++per_hop[ecmp_select(hops, *t, 99)];
  }
  // 4,096 flows over 4 hops, near 1,024 each. The exact counts were computed independently (Python:
  // the port formula of roce_udp_port.h, zlib.crc32 of the packed seed and tuple, mod 4).
  CHECK(per_hop == std::map<PortNum, int>{{1, 1026}, {2, 1031}, {3, 1022}, {4, 1017}});
  // Another seed sends some flows elsewhere.
  const FiveTuple t{IpAddress::v4(10, 0, 0, 1), IpAddress::v4(10, 0, 1, 2), 17, 0, 4791};
  int moved = 0;
  for (std::uint16_t p = 0xC000; p < 0xC000 + 256; ++p) {
    FiveTuple u = t;
    u.src_port = p;
    moved += ecmp_select(hops, u, 1) != ecmp_select(hops, u, 2);
  }
  CHECK(moved > 128);
  // Frames that are not IP/UDP have no tuple.
  std::vector<std::uint8_t> arp(64, 0);
  store_be16(arp.data() + 12, 0x0806);
  CHECK_FALSE(five_tuple_of(arp.data(), arp.size()));
  CHECK_FALSE(five_tuple_of(arp.data(), 10));
}
