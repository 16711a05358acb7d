// build_gmp_packet / parse_gmp_packet: a GMP is a UD SEND Only to QP1 on a data VL with the GSI
// Q_Key 0x80010000 (IBA Vol1 ch. 13, R36) and the 256-byte MAD as payload (R38).
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "sim/core/packet.h"
#include "sim/link/vcrc.h"
#include "sim/subnet_manager/congestion_control/cc_mad.h"
#include "sim/subnet_manager/mad/gmp_packet.h"
#include "sim/subnet_manager/mad/smp_packet.h"
#include "sim/link/lrh.h"
#include "sim/transport/icrc.h"
#include "sim/transport/ud_send_packet.h"

using namespace ibfsim;

namespace {
Mad cc_get() { return encode_cc_mad(make_cc_mad(IB_MAD_METHOD_GET, IB_MAD_ATTR_CONG_INFO, 0, {}, 7)); }
}  // namespace

TEST_CASE("R38 (A10): a Congestion Control MAD is a GMP to QP1 on a data VL with Q_Key 0x80010000",
          "[compliance][R38][A10][subnet_manager][codec]") {
  const Mad mad = cc_get();
  Packet p;
  GmpAddress a;
  a.dlid = 0x0005;
  a.slid = 0x0001;
  a.sl = 3;
  a.vl = 2;
  build_gmp_packet(p, mad, a);
  // 8 LRH + 12 BTH + 8 DETH + 256 MAD + 4 ICRC = 288 bytes = 72 words, + 2 VCRC on the wire.
  CHECK(p.wire_bytes() == 290);
  CHECK(p.pkt_len_words() == 72);
  CHECK(p.pad_len == 0);
  const std::vector<std::uint8_t> headers(p.header.begin(), p.header.begin() + p.header_len);
  CHECK(headers == std::vector<std::uint8_t>{
                       0x20, 0x32, 0x00, 0x05, 0x00, 0x48, 0x00, 0x01,                          // LRH: VL2 SL3 LNH 2
                       0x64, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x01, 0x00, 0x00, 0x00, 0x00,  // BTH: DestQP 1
                       0x80, 0x01, 0x00, 0x00, 0x00, 0x00, 0x00, 0x01});                        // DETH: Q_Key, SrcQP 1
  REQUIRE(p.payload.size() == kMadBytes);
  CHECK(std::equal(p.payload.begin(), p.payload.end(), mad.begin()));
  CHECK(icrc_ok(p));
  CHECK(vcrc_ok(p));

  const auto g = parse_gmp_packet(p);
  REQUIRE(g.has_value());
  CHECK(g->mad == mad);
  CHECK(g->lrh.vl == 2);
  CHECK(g->lrh.slid == 0x0001);
  CHECK(g->src_qp == 1);
}

TEST_CASE("R36 (A10): QP1 discards what is not a GMP: VL15, wrong Q_Key, QP0, an SMP class",
          "[compliance][R36][A10][subnet_manager][codec]") {
  const Mad mad = cc_get();
  Packet p;
  build_smp_packet(p, mad, 5, 1);  // VL15, QP0, Q_Key 0
  CHECK_FALSE(parse_gmp_packet(p).has_value());

  GmpAddress a;
  a.dlid = 5;
  a.slid = 1;
  build_gmp_packet(p, mad, a);
  REQUIRE(parse_gmp_packet(p).has_value());
  p.header[20] = 0x00;  // Q_Key 0x00010000
  CHECK_FALSE(parse_gmp_packet(p).has_value());

  Mad smp = mad;
  smp[1] = 0x01;  // class 0x01 belongs to QP0
  build_gmp_packet(p, smp, a);
  CHECK_FALSE(parse_gmp_packet(p).has_value());
}

TEST_CASE("the packet ledger counts GMPs with the management packets, data packets to other QPs not",
          "[subnet_manager][codec]") {
  Packet p;
  GmpAddress a;
  a.dlid = 5;
  a.slid = 1;
  a.vl = 0;
  build_gmp_packet(p, cc_get(), a);
  CHECK_FALSE(is_management_packet(p));  // not VL15
  CHECK(counts_as_management(p));        // built as a GMP (DestQP 1)
  // Whether a packet counts as management is what its builder said, not a guess from its bytes:
  // an ordinary UD SEND, even to DestQP 1 or 0x010001, is data.
  for (Qpn dqp : {Qpn{2}, Qpn{0x010001}, Qpn{1}}) {
    Packet ud;
    UdSendFields f;
    f.dlid = 5;
    f.slid = 1;
    f.dest_qp = dqp;
    build_ud_send(ud, f, 256, nullptr);
    CHECK_FALSE(counts_as_management(ud));
  }
  Packet raw;                               // a raw packet (LNH 0)
  raw.header[1] = 0x00;
  raw.header_len = 8;
  CHECK_FALSE(counts_as_management(raw));
}
