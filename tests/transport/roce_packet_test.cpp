// A RoCE v2 frame in a Packet (Ethernet framing): build_roce_packet writes, field by field, exactly
// the bytes build_roce_frame writes whole, and load_roce_frame reads them back into the same packet.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/transport/opcode.h"
#include "sim/transport/roce/roce_frame.h"
#include "sim/transport/roce/roce_packet.h"

using namespace ibfsim;

namespace {

RoceAddressing addressing(bool v6, bool tagged) {
  RoceAddressing a;
  a.dst_mac = {0x02, 0, 0, 0, 0, 0x02};
  a.src_mac = {0x02, 0, 0, 0, 0, 0x01};
  if (tagged) a.vlan = VlanTag{3, false, 100};
  a.src_ip = v6 ? *parse_ip_address("fd00::1") : IpAddress::v4(10, 0, 0, 1);
  a.dst_ip = v6 ? *parse_ip_address("fd00::2") : IpAddress::v4(10, 0, 0, 2);
  a.dscp = 26;
  a.ecn = ecn::kEct0;
  a.flow_label = roce_flow_label(0x11, 0x12);
  a.udp_src_port = roce_udp_source_port(0x11, 0x12);
  return a;
}

struct Case {
  const char* what;
  RoceAddressing a;
  TransportHeaders h;
  std::uint32_t payload_len;
  bool carried;
  std::size_t header_len;  // destination MAC .. last extended header
  std::size_t frame_bytes;
};

std::vector<Case> cases() {
  std::vector<Case> c;
  TransportHeaders write;
  write.bth.opcode = kOpcodeRcBase + op::kRdmaWriteFirst;
  write.bth.dest_qp = 0x12;
  write.bth.psn = 0x123456;
  write.reth = {0x7f0012345000, 0xCAFE, 65536};
  // 14 + 20 + 8 + 12 + 16 = 70 bytes of headers; + 1,001 payload + 3 pad + 4 ICRC + 4 FCS.
  c.push_back({"IPv4 WRITE First, carried odd payload", addressing(false, false), write, 1001, true, 70, 1082});
  TransportHeaders send;
  send.bth.opcode = kOpcodeRcBase + op::kSendOnly;
  send.bth.dest_qp = 0x12;
  send.bth.psn = 5;
  // 54 bytes of headers, ICRC: 58 of content, 2 of Ethernet pad, FCS: the 64-byte minimum.
  c.push_back({"IPv4 SEND Only of 0 bytes (Ethernet pad)", addressing(false, false), send, 0, false, 54, 64});
  TransportHeaders ud;
  ud.bth.opcode = kOpcodeUdSendOnly;
  ud.bth.dest_qp = 0x21;
  ud.bth.psn = 77;
  ud.deth = {0x11111111, 0x22};
  // 14 + 4 + 40 + 8 + 12 + 8 = 86 bytes of headers (IPv6: the UDP checksum is computed).
  c.push_back({"IPv6 tagged UD SEND, elided payload", addressing(true, true), ud, 256, false, 86, 86 + 256 + 8});
  return c;
}

std::vector<std::uint8_t> payload_bytes(std::uint32_t n) {
  std::vector<std::uint8_t> v(n);
  for (std::uint32_t i = 0; i < n; ++i) v[i] = static_cast<std::uint8_t>(i * 7 + 1);
  return v;
}

}  // namespace

TEST_CASE("build_roce_packet writes the bytes build_roce_frame does, and load_roce_frame reads them back",
          "[transport][roce]") {
  for (const Case& c : cases()) {
    INFO(c.what);
    const auto data = payload_bytes(c.payload_len);
    const std::uint8_t* payload = c.carried ? data.data() : nullptr;
    const auto frame = build_roce_frame(c.a, c.h, c.payload_len, payload);
    REQUIRE(frame.size() == c.frame_bytes);
    REQUIRE(parse_roce_frame(frame.data(), frame.size()).ok());

    Packet built;
    build_roce_packet(built, c.a, c.h, c.payload_len, payload);
    CHECK(built.ethernet());
    CHECK(built.header_len == c.header_len);
    CHECK(built.payload_len == c.payload_len);
    CHECK(built.payload_carried() == (c.carried || c.payload_len == 0));
    CHECK(built.wire_bytes() == frame.size());
    std::vector<std::uint8_t> bytes;
    built.write_frame(bytes);
    CHECK(bytes == frame);

    Packet loaded;
    REQUIRE(load_roce_frame(loaded, frame.data(), frame.size(), c.carried) == RoceFrameError::kNone);
    CHECK(loaded.header_len == c.header_len);
    CHECK(loaded.pad_len == built.pad_len);
    CHECK(loaded.eth_pad_len == built.eth_pad_len);
    loaded.write_frame(bytes);
    CHECK(bytes == frame);
  }
}

TEST_CASE("load_roce_frame refuses a frame that is not good RoCE v2", "[transport][roce]") {
  TransportHeaders send;
  send.bth.opcode = kOpcodeRcBase + op::kSendOnly;
  auto frame = build_roce_frame(addressing(false, false), send, 64, nullptr);
  frame[60] ^= 1;  // a payload bit: the FCS no longer matches
  Packet p;
  CHECK(load_roce_frame(p, frame.data(), frame.size(), false) == RoceFrameError::kBadFcs);
  CHECK(!p.ethernet());
}

TEST_CASE("an InfiniBand packet's framing, length and trailer are as before", "[core][roce]") {
  Packet p;
  CHECK(p.framing == Framing::kInfiniBand);
  p.header_len = 20;  // LRH + BTH
  p.payload_len = 256;
  CHECK(p.wire_bytes() == 20 + 256 + 4 + 2);  // + ICRC + VCRC
  CHECK(p.pkt_len_words() == 70);
  CHECK(sizeof(Packet) == 256);
}
