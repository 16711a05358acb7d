// The hand-built reference packets (docs/compliance.md, "Reference packets"), reproduced byte for
// byte by the codecs.
// (The flow-control vector lives in tests/link/flow_control_packet_test.cpp.)
#include <catch2/catch.hpp>
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/packet.h"
#include "sim/link/vcrc.h"
#include "sim/link/lrh.h"
#include "sim/transport/aeth.h"
#include "sim/transport/bth.h"
#include "sim/transport/icrc.h"
#include "sim/transport/ud_send_packet.h"

using namespace ibfsim;

namespace {
std::vector<std::uint8_t> from_hex(const std::string& hex) {
  std::vector<std::uint8_t> out;
  std::string digits;
  for (char c : hex)
    if (c != ' ') digits += c;
  for (std::size_t i = 0; i + 1 < digits.size(); i += 2)
    out.push_back(static_cast<std::uint8_t>(std::stoul(digits.substr(i, 2), nullptr, 16)));
  return out;
}

std::uint32_t wire_icrc(const Packet& p) {
  return p.icrc[0] | p.icrc[1] << 8 | p.icrc[2] << 16 | std::uint32_t{p.icrc[3]} << 24;
}
}  // namespace

TEST_CASE("UD SEND Only \"hello, fabric\" built by build_ud_send matches the reference frame",
          "[transport][codec][crc]") {
  const std::string text = "hello, fabric";
  UdSendFields f;
  f.dlid = 2;
  f.slid = 1;
  f.se = true;
  f.dest_qp = 0x12;
  f.psn = 1;
  f.q_key = 0x1234;
  f.src_qp = 0x11;
  Packet p;
  build_ud_send(p, f, static_cast<std::uint32_t>(text.size()),
                reinterpret_cast<const std::uint8_t*>(text.data()));

  std::vector<std::uint8_t> frame;
  p.write_frame(frame);
  REQUIRE(frame == from_hex("00020002000c0001 64b0ffff0000001200000001 0000123400000011"
                            "68656c6c6f2c20666162726963000000 7fac3101 4d3e"));
  REQUIRE(packet_icrc(p) == 0x0131AC7F);
  REQUIRE(wire_icrc(p) == 0x0131AC7F);
  REQUIRE(packet_vcrc(p) == 0x3E4D);
  REQUIRE(icrc_ok(p));
  REQUIRE(vcrc_ok(p));
}

TEST_CASE("RC ACK built from the LRH, BTH and AETH encoders matches the reference frame",
          "[transport][codec][crc]") {
  Packet p;
  p.header_len = kLrhBytes + kBthBytes + kAethBytes;
  p.payload_len = 0;
  p.pad_len = 0;
  Lrh lrh{1, 0, 1, kLnhIbaLocal, 1, 0, 3};
  lrh.pkt_len = static_cast<std::uint16_t>(p.pkt_len_words());
  REQUIRE(lrh.pkt_len == 7);
  encode_lrh(lrh, &p.header[0]);
  Bth bth;
  bth.opcode = kOpcodeRcBase + op::kAcknowledge;
  bth.p_key = 0x8001;
  bth.dest_qp = 0x44;
  bth.psn = 0xABCD;
  encode_bth(bth, &p.header[kLrhBytes]);
  encode_aeth({0x1F, 1}, &p.header[kLrhBytes + kBthBytes]);
  write_icrc(p);
  write_vcrc(p);

  std::vector<std::uint8_t> frame;
  p.write_frame(frame);
  REQUIRE(frame == from_hex("1012000100070003 11008001000000440000abcd 1f000001 52426d9d e613"));
  REQUIRE(packet_icrc(p) == 0x9D6D4252);
  REQUIRE(packet_vcrc(p) == 0x13E6);
}
