// The TCP header codec (tcp_header.h) and a TCP segment inside an IPoIB UD SEND payload
// (ipoib_tcp_segment.h), against hand-built bytes; the checksums were computed apart, by hand.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/transport/ipoib/ipoib_tcp_segment.h"
#include "sim/transport/tcp/tcp_header.h"

using namespace ibfsim;

namespace {
TcpHeader syn() {
  TcpHeader h;
  h.src_port = 40000;
  h.dst_port = 5001;
  h.seq = 0x01020304;
  h.flags = kTcpSyn;
  h.window = 65535;
  h.mss = 2004;
  h.window_scale = 7;
  h.sack_permitted = true;
  return h;
}
}  // namespace

TEST_CASE("TCP header: a SYN with MSS, window scale and SACK-permitted is 32 bytes", "[transport][tcp]") {
  TcpHeader h = syn();
  REQUIRE(tcp_header_bytes(h) == 32);
  std::uint8_t b[32];
  encode_tcp_header(h, b);
  const std::vector<std::uint8_t> want{0x9c, 0x40, 0x13, 0x89, 0x01, 0x02, 0x03, 0x04, 0, 0, 0, 0,
                                       0x80, 0x02, 0xff, 0xff, 0, 0, 0, 0,
                                       2, 4, 0x07, 0xd4, 1, 3, 3, 7, 1, 1, 4, 2};
  CHECK(std::vector<std::uint8_t>(b, b + 32) == want);
  // 10.0.0.1 -> 10.0.0.2, no data.
  CHECK(tcp_checksum(IpAddress::v4(10, 0, 0, 1), IpAddress::v4(10, 0, 0, 2), b, 32, {}) == 0xa51f);
  const auto d = decode_tcp_header(b, 32);
  REQUIRE(d);
  CHECK(d->src_port == 40000);
  CHECK(d->dst_port == 5001);
  CHECK(d->seq == 0x01020304);
  CHECK(d->flags == kTcpSyn);
  CHECK(d->window == 65535);
  CHECK(d->mss == std::optional<std::uint16_t>(2004));
  CHECK(d->window_scale == std::optional<std::uint8_t>(7));
  CHECK(d->sack_permitted);
  CHECK(d->sack.empty());
}

TEST_CASE("TCP header: SACK blocks after two NOPs, checksum over zero data", "[transport][tcp]") {
  TcpHeader h;
  h.src_port = 5001;
  h.dst_port = 40000;
  h.seq = 0xAABBCCDD;
  h.ack = 0xFFFFFF00;
  h.flags = kTcpAck;
  h.window = 0x1234;
  h.sack = {{0x00000EA8, 0x0000167C}, {0x10, 0x20}};  // the first block wraps past 2^32
  REQUIRE(tcp_header_bytes(h) == 40);
  std::uint8_t b[40];
  encode_tcp_header(h, b);
  CHECK(b[12] == 0xA0);  // 10 words
  CHECK(std::vector<std::uint8_t>(b + 20, b + 24) == std::vector<std::uint8_t>{1, 1, 5, 18});
  CHECK(std::vector<std::uint8_t>(b + 24, b + 32) == std::vector<std::uint8_t>{0, 0, 0x0e, 0xa8, 0, 0, 0x16, 0x7c});
  CHECK(tcp_checksum(IpAddress::v4(10, 0, 0, 2), IpAddress::v4(10, 0, 0, 1), b, 40, {ByteRun{nullptr, 100}}) ==
        0xe75a);
  const auto d = decode_tcp_header(b, 40);
  REQUIRE(d);
  CHECK(d->sack == h.sack);
  CHECK(!d->mss);
  CHECK(d->ack == 0xFFFFFF00);
}

TEST_CASE("TCP header: a bad data offset or an option past the header is refused", "[transport][tcp]") {
  std::uint8_t b[32];
  encode_tcp_header(syn(), b);
  CHECK(!decode_tcp_header(b, 31));  // the data offset says 32
  b[12] = 0x40;                      // 16 bytes: below the fixed header
  CHECK(!decode_tcp_header(b, 32));
  b[12] = 0x60;  // 24 bytes: the MSS option fits, then an option whose length runs past
  b[20] = 2, b[21] = 4;
  b[22] = 0, b[23] = 0;
  CHECK(decode_tcp_header(b, 32));
  b[21] = 8;
  CHECK(!decode_tcp_header(b, 32));
}

TEST_CASE("TCP over IPoIB: headers, checksums and lengths round-trip", "[transport][tcp][ipoib]") {
  IpoibTcpSegment s;
  s.src_ip = {10, 0, 0, 1};
  s.dst_ip = {10, 0, 0, 2};
  s.identification = 7;
  s.tcp.src_port = 40000;
  s.tcp.dst_port = 5001;
  s.tcp.seq = 1000;
  s.tcp.ack = 1;
  s.tcp.flags = kTcpAck | kTcpPsh;
  s.tcp.window = 512;
  s.data_bytes = 2004;  // one MSS: 2044 - 20 - 20
  const std::vector<std::uint8_t> b = encode_ipoib_tcp_segment(s);
  REQUIRE(b.size() == 4 + 20 + 20 + 2004);
  CHECK(ipoib_tcp_headers_bytes(s) == 44);
  CHECK(b[0] == 0x08);
  CHECK(b[1] == 0x00);
  CHECK(b[4 + 9] == 6);                         // protocol TCP
  CHECK(b[4 + 2] == 0x07);                      // IP total length 2044 = 0x07FC
  CHECK(b[4 + 3] == 0xFC);
  const auto d = decode_ipoib_tcp_segment(b.data(), b.size());
  REQUIRE(d);
  CHECK(d->data_bytes == 2004);
  CHECK(d->tcp.seq == 1000);
  CHECK(d->tcp.flags == (kTcpAck | kTcpPsh));
  CHECK(d->identification == 7);
  std::vector<std::uint8_t> bad = b;
  bad.back() = 1;  // a data byte changed: the TCP checksum no longer holds
  CHECK(!decode_ipoib_tcp_segment(bad.data(), bad.size()));
  CHECK(!decode_ipoib_tcp_segment(b.data(), b.size() - 1));
}
