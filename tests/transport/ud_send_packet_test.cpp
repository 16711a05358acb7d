// build_ud_send / parse_ud_send: lengths and padding, round trips, elided payloads, rejection of
// other packets, and CRCs a receiver can verify.
#include "sim/transport/ud_send_packet.h"

#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "sim/core/packet.h"
#include "sim/link/vcrc.h"
#include "sim/link/lrh.h"
#include "sim/transport/icrc.h"

using namespace ibfsim;

namespace {
UdSendFields fields() {
  UdSendFields f;
  f.vl = 3;
  f.sl = 5;
  f.dlid = 0x0102;
  f.slid = 0x0304;
  f.p_key = 0x8001;
  f.dest_qp = 0xABCDEF;
  f.psn = 0x123456;
  f.q_key = 0x80010000;
  f.src_qp = 1;
  return f;
}
}  // namespace

TEST_CASE("build_ud_send sets PadCnt, pad and PktLen from the payload length",
          "[transport][codec]") {
  for (std::uint32_t len = 0; len <= 9; ++len)
    for (bool imm : {false, true}) {
      UdSendFields f = fields();
      if (imm) f.imm = 7;
      Packet p;
      build_ud_send(p, f, len, nullptr);
      INFO("payload " << len << " imm " << imm);
      REQUIRE(p.header_len == (imm ? 32 : 28));
      REQUIRE(p.payload_len == len);
      REQUIRE((p.payload_len + p.pad_len) % 4 == 0);
      REQUIRE(p.pad_len < 4);
      REQUIRE(p.has_icrc);
      const auto view = parse_ud_send(p);
      REQUIRE(view);
      REQUIRE(view->bth.pad_cnt == p.pad_len);
      REQUIRE(view->lrh.pkt_len * 4u + 2u == p.wire_bytes());
      REQUIRE(icrc_ok(p));
      REQUIRE(vcrc_ok(p));
    }
}

TEST_CASE("parse_ud_send returns every field build_ud_send wrote", "[transport][codec]") {
  for (bool imm : {false, true}) {
    UdSendFields f = fields();
    f.se = imm;
    if (imm) f.imm = 0xFFFFFFFF;
    Packet p;
    const std::vector<std::uint8_t> payload(256, 0x5A);
    build_ud_send(p, f, 256, payload.data());
    REQUIRE(p.payload == payload);
    const auto v = parse_ud_send(p);
    REQUIRE(v);
    REQUIRE(v->lrh.vl == 3);
    REQUIRE(v->lrh.lver == 0);
    REQUIRE(v->lrh.sl == 5);
    REQUIRE(v->lrh.lnh == kLnhIbaLocal);
    REQUIRE(v->lrh.dlid == 0x0102);
    REQUIRE(v->lrh.slid == 0x0304);
    REQUIRE(v->bth.opcode == (imm ? kOpcodeUdSendOnlyImm : kOpcodeUdSendOnly));
    REQUIRE(v->bth.se == imm);
    REQUIRE_FALSE(v->bth.m);
    REQUIRE(v->bth.tver == 0);
    REQUIRE(v->bth.p_key == 0x8001);
    REQUIRE_FALSE(v->bth.fecn);
    REQUIRE_FALSE(v->bth.becn);
    REQUIRE(v->bth.dest_qp == 0xABCDEF);
    REQUIRE_FALSE(v->bth.ack_req);
    REQUIRE(v->bth.psn == 0x123456);
    REQUIRE(v->deth.q_key == 0x80010000);
    REQUIRE(v->deth.src_qp == 1);
    REQUIRE(v->imm == f.imm);
  }
}

TEST_CASE("an elided UD payload gives the same frame CRCs as carried zeros", "[transport][crc]") {
  for (std::uint32_t n : {0u, 1u, 3u, 63u, 64u, 2048u, 4096u, 4099u}) {
    INFO("payload " << n << " bytes");
    const std::vector<std::uint8_t> zeros(n, 0);
    Packet elided, carried;
    build_ud_send(elided, fields(), n, nullptr);
    build_ud_send(carried, fields(), n, zeros.data());
    REQUIRE(elided.payload.empty());
    REQUIRE(carried.payload.size() == n);
    REQUIRE(elided.icrc == carried.icrc);
    REQUIRE(elided.vcrc == carried.vcrc);
    std::vector<std::uint8_t> a, b;
    elided.write_frame(a);
    carried.write_frame(b);
    REQUIRE(a == b);
  }
}

TEST_CASE("rebuilding a pooled packet replaces a carried payload with an elided one",
          "[transport][codec]") {
  Packet p;
  const std::vector<std::uint8_t> payload(100, 0xEE);
  build_ud_send(p, fields(), 100, payload.data());
  build_ud_send(p, fields(), 100, nullptr);
  REQUIRE(p.payload.empty());
  REQUIRE(icrc_ok(p));
  REQUIRE(vcrc_ok(p));
}

TEST_CASE("a switch rewriting VL keeps the ICRC valid and needs a new VCRC", "[transport][crc]") {
  Packet p;
  build_ud_send(p, fields(), 100, nullptr);
  set_lrh_vl(p.header.data(), 7);
  REQUIRE(icrc_ok(p));
  REQUIRE_FALSE(vcrc_ok(p));
  write_vcrc(p);
  REQUIRE(vcrc_ok(p));
}

TEST_CASE("parse_ud_send rejects other LNHs, other opcodes and short headers",
          "[transport][codec]") {
  Packet p;
  build_ud_send(p, fields(), 8, nullptr);
  REQUIRE(parse_ud_send(p));

  Packet global = p;
  global.header[1] = static_cast<std::uint8_t>((global.header[1] & ~3) | kLnhIbaGlobal);
  REQUIRE_FALSE(parse_ud_send(global));

  Packet rc = p;
  rc.header[kLrhBytes] = kOpcodeRcBase + op::kSendOnly;
  REQUIRE_FALSE(parse_ud_send(rc));

  Packet imm_without_immdt = p;
  imm_without_immdt.header[kLrhBytes] =
      kOpcodeUdSendOnlyImm;  // claims ImmDt but header is 28 bytes
  REQUIRE_FALSE(parse_ud_send(imm_without_immdt));

  Packet short_header = p;
  short_header.header_len = 20;
  REQUIRE_FALSE(parse_ud_send(short_header));
}
