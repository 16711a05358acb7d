// DETH, RETH, AETH, ImmDt and IETH codecs: byte layout and round trips of field extremes; the
// packets that carry an IETH (SEND Last / Only with Invalidate) built and parsed.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>

#include "sim/transport/aeth.h"
#include "sim/transport/deth.h"
#include "sim/transport/ieth.h"
#include "sim/transport/immdt.h"
#include "sim/transport/opcode.h"
#include "sim/transport/transport_packet.h"
#include "sim/transport/reth.h"

using namespace ibfsim;

TEST_CASE("DETH layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kDethBytes> out{};
  out.fill(0xAA);
  encode_deth({0x1234, 0x11}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 8>{0, 0, 0x12, 0x34, 0, 0, 0, 0x11});
  for (const Deth& d : {Deth{0, 0}, Deth{0xFFFFFFFF, 0xFFFFFF}, Deth{0x80010000, 1}}) {
    encode_deth(d, out.data());
    const Deth back = decode_deth(out.data());
    REQUIRE(back.q_key == d.q_key);
    REQUIRE(back.src_qp == d.src_qp);
  }
  encode_deth({0, 0xFFFFFFFF}, out.data());
  REQUIRE(out[4] == 0);  // reserved
  REQUIRE(decode_deth(out.data()).src_qp == 0xFFFFFF);
}

TEST_CASE("RETH layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kRethBytes> out{};
  encode_reth({0x0102030405060708, 0x090A0B0C, 0x0D0E0F10}, out.data());
  for (std::size_t i = 0; i < out.size(); ++i) REQUIRE(out[i] == i + 1);
  for (const Reth& r :
       {Reth{0, 0, 0}, Reth{~0ull, 0xFFFFFFFF, 0xFFFFFFFF}, Reth{1ull << 63, 1, 0x80000000}}) {
    encode_reth(r, out.data());
    const Reth back = decode_reth(out.data());
    REQUIRE(back.va == r.va);
    REQUIRE(back.r_key == r.r_key);
    REQUIRE(back.dma_len == r.dma_len);
  }
}

TEST_CASE("AETH layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kAethBytes> out{};
  encode_aeth({0x1F, 1}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 4>{0x1f, 0, 0, 0x01});
  for (const Aeth& a : {Aeth{0, 0}, Aeth{0xFF, 0xFFFFFF}, Aeth{0x60, 0x800000}}) {
    encode_aeth(a, out.data());
    const Aeth back = decode_aeth(out.data());
    REQUIRE(back.syndrome == a.syndrome);
    REQUIRE(back.msn == a.msn);
  }
  encode_aeth({0x20, 0x01ABCDEF}, out.data());
  REQUIRE(decode_aeth(out.data()).msn == 0xABCDEF);
}

TEST_CASE("ImmDt layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kImmdtBytes> out{};
  encode_immdt({0xCAFEBABE}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 4>{0xCA, 0xFE, 0xBA, 0xBE});
  for (std::uint32_t v : {0u, 1u, 0xFFFFFFFFu, 0x80000000u}) {
    encode_immdt({v}, out.data());
    REQUIRE(decode_immdt(out.data()).data == v);
  }
}

TEST_CASE("IETH layout and round trips", "[transport][codec]") {
  std::array<std::uint8_t, kIethBytes> out{};
  encode_ieth({0x00ABCD5A}, out.data());
  REQUIRE(out == std::array<std::uint8_t, 4>{0x00, 0xAB, 0xCD, 0x5A});
  for (std::uint32_t k : {0u, 1u, 0xFFFFFFFFu, 0x80000000u, 0x123456A5u}) {
    encode_ieth({k}, out.data());
    REQUIRE(decode_ieth(out.data()).r_key == k);
  }
}

TEST_CASE("SEND Last and Only with Invalidate: RC only, an IETH after the BTH and before the payload",
          "[transport][codec]") {
  // The layouts: RC 0x16 and 0x17 carry an IETH and payload; UC and UD have no such opcode.
  for (std::uint8_t o : {op::kSendLastInvalidate, op::kSendOnlyInvalidate}) {
    const auto rc = opcode_layout(static_cast<std::uint8_t>(kOpcodeRcBase + o));
    REQUIRE(rc);
    CHECK(rc->headers == kExtIeth);
    CHECK(rc->payload);
    CHECK_FALSE(opcode_layout(static_cast<std::uint8_t>(kOpcodeUcBase + o)));
    CHECK_FALSE(opcode_layout(static_cast<std::uint8_t>(kOpcodeUdBase + o)));
  }
  // SEND Only with Invalidate of 5 bytes: LRH 8 | BTH 12 | IETH 4 | 5 + 3 pad | ICRC 4 | VCRC 2.
  TransportHeaders h;
  h.lrh.dlid = 2;
  h.lrh.slid = 1;
  h.bth.opcode = op::kSendOnlyInvalidate;
  h.bth.p_key = 0xFFFF;
  h.bth.dest_qp = 0x104;
  h.bth.psn = 7;
  h.ieth = {0x000123A6};
  const std::uint8_t payload[5] = {1, 2, 3, 4, 5};
  Packet p;
  build_transport_packet(p, h, 5, payload);
  CHECK(p.header_len == 8 + 12 + 4);
  CHECK(p.pkt_len_words() == (8 + 12 + 4 + 8 + 4) / 4);
  CHECK(p.header[20] == 0x00);
  CHECK(p.header[21] == 0x01);
  CHECK(p.header[22] == 0x23);
  CHECK(p.header[23] == 0xA6);
  const ParsedPacket pp = parse_transport_packet(p);
  REQUIRE(pp.ok());
  CHECK(pp.ext == kExtIeth);
  CHECK(pp.h.ieth.r_key == 0x000123A6);
  CHECK(pp.payload_len == 5);
  CHECK(pp.h.bth.pad_cnt == 3);
}
