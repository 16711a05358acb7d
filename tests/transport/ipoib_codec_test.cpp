// IPoIB datagram mode codecs (RFC 4391): the 4-byte encapsulation header, the 20-byte hardware
// address, the broadcast MGID of a P_Key, ARP over IPoIB and a UDP datagram inside a UD SEND.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/ethernet/internet_checksum.h"
#include "sim/transport/ipoib/ipoib_arp.h"
#include "sim/transport/ipoib/ipoib_datagram.h"
#include "sim/transport/ipoib/ipoib_header.h"

using namespace ibfsim;

TEST_CASE("IPoIB header: type then two reserved bytes", "[transport][ipoib]") {
  std::uint8_t b[4];
  encode_ipoib_header(IpoibHeader{kEtherTypeArp, 0}, b);
  CHECK(std::vector<std::uint8_t>(b, b + 4) == std::vector<std::uint8_t>{0x08, 0x06, 0x00, 0x00});
  const IpoibHeader h = decode_ipoib_header(b);
  CHECK(h.type == 0x0806);
  CHECK(h.reserved == 0);
}

TEST_CASE("IPoIB hardware address: flags, QPN, GID in 20 bytes", "[transport][ipoib]") {
  IpoibHwAddress a;
  a.flags = 0x80;
  a.qpn = 0x000148;
  for (std::size_t i = 0; i < 16; ++i) a.gid[i] = static_cast<std::uint8_t>(0xA0 + i);
  std::uint8_t b[20];
  encode_ipoib_hw_address(a, b);
  CHECK(b[0] == 0x80);
  CHECK(b[1] == 0x00);
  CHECK(b[2] == 0x01);
  CHECK(b[3] == 0x48);
  CHECK(b[4] == 0xA0);
  CHECK(b[19] == 0xAF);
  CHECK(decode_ipoib_hw_address(b) == a);
}

TEST_CASE("IPoIB broadcast MGID: ff12:401b:PPPP::ffff:ffff with the full-member bit", "[transport][ipoib]") {
  const IpoibGid want{0xff, 0x12, 0x40, 0x1b, 0xff, 0xff, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 0xff, 0xff};
  CHECK(ipoib_broadcast_mgid(0xFFFF) == want);
  // A limited-member P_Key names the same group as its full-member form.
  const IpoibGid g = ipoib_broadcast_mgid(0x0012);
  CHECK(g[4] == 0x80);
  CHECK(g[5] == 0x12);
  CHECK(ipoib_broadcast_mgid(0x8012) == g);
  const IpoibHwAddress bcast = ipoib_broadcast_address(0xFFFF);
  CHECK(bcast.qpn == 0xFFFFFF);
  CHECK(bcast.gid == want);
  CHECK(ipoib_mtu(2048) == 2044);
  CHECK(ipoib_mtu(4096) == 4092);
  CHECK(ipoib_udp_max_data(2044) == 2016);
}

TEST_CASE("ARP over IPoIB: 56 bytes, hardware type 32, lengths 20 and 4", "[transport][ipoib]") {
  IpoibArp a;
  a.operation = kArpRequest;
  a.sender_hw.qpn = 0x000100;
  a.sender_hw.gid = IpoibGid{0xfe, 0x80, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2};
  a.sender_ip = {10, 0, 0, 2};
  a.target_ip = {10, 0, 0, 3};
  std::uint8_t b[kIpoibArpBytes];
  encode_ipoib_arp(a, b);
  const std::vector<std::uint8_t> head(b, b + 8);
  CHECK(head == std::vector<std::uint8_t>{0x00, 0x20, 0x08, 0x00, 20, 4, 0x00, 0x01});
  CHECK(b[28] == 10);
  CHECK(b[31] == 2);
  for (std::size_t i = 32; i < 52; ++i) CHECK(b[i] == 0);  // target hardware address unknown
  CHECK(b[55] == 3);
  const auto d = decode_ipoib_arp(b);
  REQUIRE(d);
  CHECK(d->operation == kArpRequest);
  CHECK(d->sender_hw == a.sender_hw);
  CHECK(d->sender_ip == a.sender_ip);
  CHECK(d->target_ip == a.target_ip);
  b[1] = 1;  // Ethernet's hardware type
  CHECK_FALSE(decode_ipoib_arp(b));
  b[1] = 32;
  b[7] = 3;  // RARP
  CHECK_FALSE(decode_ipoib_arp(b));
}

TEST_CASE("UDP over IPoIB: IPoIB header, IPv4 and UDP with both checksums right", "[transport][ipoib]") {
  IpoibUdpDatagram d;
  d.src_ip = {10, 0, 0, 1};
  d.dst_ip = {10, 0, 0, 2};
  d.src_port = 49152;
  d.dst_port = 5001;
  d.identification = 7;
  d.data_bytes = 100;
  std::vector<std::uint8_t> b(ipoib_udp_payload_bytes(d.data_bytes), 0);
  CHECK(b.size() == 132);
  encode_ipoib_udp_headers(d, b.data());
  CHECK(b[0] == 0x08);
  CHECK(b[1] == 0x00);
  CHECK(b[4] == 0x45);                 // IPv4, IHL 5
  CHECK(b[6] == 0);                    // total length 128 = 20 + 8 + 100
  CHECK(b[7] == 128);
  CHECK(b[13] == 17);                  // UDP
  CHECK(b[24] == 0xC0);                // source port 49152
  CHECK(b[29] == 108);                 // UDP length 8 + 100
  CHECK(internet_checksum(b.data() + 4, 20) == 0);  // the IP header sums to zero with its checksum
  // The UDP checksum by hand: the pseudo-header (addresses, protocol, UDP length), then the UDP
  // header and data (zeros) sum to 0xFFFF with the checksum in place.
  InternetSum s;
  s.add(b.data() + 16, 8);  // source and destination addresses
  s.add_be16(17);
  s.add_be16(108);
  s.add(b.data() + 24, 108);
  CHECK(s.checksum() == 0);
  const auto got = decode_ipoib_udp(b.data(), b.size());
  REQUIRE(got);
  CHECK(got->src_ip == d.src_ip);
  CHECK(got->dst_ip == d.dst_ip);
  CHECK(got->src_port == 49152);
  CHECK(got->dst_port == 5001);
  CHECK(got->identification == 7);
  CHECK(got->data_bytes == 100);
  CHECK_FALSE(decode_ipoib_udp(b.data(), b.size() - 1));  // lengths disagree
  b[14] ^= 1;                                              // TTL changed, checksum not
  CHECK_FALSE(decode_ipoib_udp(b.data(), b.size()));
}
