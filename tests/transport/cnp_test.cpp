// The Congestion Notification Packet: exact bytes, CRCs computed independently (Python zlib.crc32
// over the ICRC-masked bytes and a bitwise CRC-16 0xD008, see the comment in the test).
#include <catch2/catch.hpp>

#include "sim/link/vcrc.h"
#include "sim/transport/becn_responder.h"
#include "sim/transport/bth.h"
#include "sim/transport/cnp.h"
#include "sim/transport/icrc.h"

using namespace ibfsim;

TEST_CASE("CNP: LRH, BTH with OpCode 0x80 and BECN, ICRC, VCRC: 26 bytes", "[transport][cc]") {
  CnpFields f;
  f.vl = 0;
  f.sl = 3;
  f.dlid = 1;
  f.slid = 2;
  f.p_key = 0xFFFF;
  f.dest_qp = 0x123;
  Packet p;
  build_cnp(p, f);
  std::vector<std::uint8_t> frame;
  p.write_frame(frame);
  // LRH 00 32 0001 0006 0002 (SL 3, LNH 2, PktLen 6 words); BTH 80 00 ffff 40 000123 00 000000;
  // ICRC = zlib.crc32 over the same 20 bytes with byte 0 | 0xF0 and byte 12 = 0xFF = 0x8C2D55A4,
  // sent least significant byte first; VCRC (0xD008 reflected, init and xor 0xFFFF) = 0x2D35.
  const std::vector<std::uint8_t> expected = {0x00, 0x32, 0x00, 0x01, 0x00, 0x06, 0x00, 0x02, 0x80,
                                              0x00, 0xFF, 0xFF, 0x40, 0x00, 0x01, 0x23, 0x00, 0x00,
                                              0x00, 0x00, 0xA4, 0x55, 0x2D, 0x8C, 0x35, 0x2D};
  CHECK(frame == expected);
  CHECK(p.wire_bytes() == 26);
  CHECK(icrc_ok(p));
  CHECK(vcrc_ok(p));
  CHECK(is_cnp(p));
  CHECK(bth_offset(p) == 8);
}

TEST_CASE("CNP with a GRH: LNH 3, PayLen 16, the GIDs swapped", "[transport][cc]") {
  Lrh lrh;
  lrh.sl = 5;
  lrh.dlid = 9;
  lrh.slid = 4;
  lrh.lnh = kLnhIbaGlobal;
  Grh g;
  g.sgid[15] = 0xAA;
  g.dgid[15] = 0xBB;
  g.hop_lmt = 64;
  g.tclass = 7;
  Bth bth;
  bth.p_key = 0x8001;
  bth.fecn = true;
  std::array<std::uint8_t, 16> me{};
  me[15] = 0xBB;
  const CnpFields f = cnp_for(lrh, g, bth, 0x456, 9, 1, me);
  CHECK(f.dlid == 4);
  CHECK(f.slid == 9);
  CHECK(f.sl == 5);
  CHECK(f.vl == 1);
  CHECK(f.p_key == 0x8001);
  CHECK(f.dest_qp == 0x456);
  Packet p;
  build_cnp(p, f);
  CHECK(p.wire_bytes() == 66);
  CHECK(lrh_lnh(p.header.data()) == kLnhIbaGlobal);
  const Grh back = decode_grh(p.header.data() + kLrhBytes);
  CHECK(back.pay_len == 16);
  CHECK(back.nxt_hdr == 0x1B);
  CHECK(back.sgid[15] == 0xBB);
  CHECK(back.dgid[15] == 0xAA);
  CHECK(back.hop_lmt == 64);
  const Bth b = decode_bth(p.header.data() + bth_offset(p));
  CHECK(b.opcode == 0x80);
  CHECK(b.becn);
  CHECK_FALSE(b.fecn);
  CHECK(b.dest_qp == 0x456);
  CHECK(b.psn == 0);
  CHECK(icrc_ok(p));
  CHECK(vcrc_ok(p));
}

TEST_CASE("the BECN of an accepted FECN rides on a due response, else in a CNP", "[transport][cc]") {
  CHECK(becn_carrier(true) == BecnCarrier::kResponse);
  CHECK(becn_carrier(false) == BecnCarrier::kCnp);
}
