// build_smp_packet: the headers of an SMP on the wire, and CRCs checked against values computed
// independently (Python zlib.crc32 for the ICRC, a bitwise CRC-16 0xD008 for the VCRC).
#include <catch2/catch.hpp>
#include <cstdint>
#include <vector>

#include "sim/core/packet.h"
#include "sim/link/vcrc.h"
#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/smp_packet.h"
#include "sim/transport/icrc.h"
#include "sim/transport/ud_send_packet.h"

using namespace ibfsim;

TEST_CASE("An SMP is a UD SEND Only to QP0 on VL15 with the MAD as its 256-byte payload",
          "[subnet_manager][codec]") {
  const Mad mad = encode_smp(make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 1, {}));
  Packet p;
  build_smp_packet(p, mad, kLidPermissive, kLidPermissive);
  CHECK(p.wire_bytes() == 290);
  CHECK(p.pkt_len_words() == 72);
  CHECK(p.pad_len == 0);
  const std::vector<std::uint8_t> headers(p.header.begin(), p.header.begin() + p.header_len);
  CHECK(headers == std::vector<std::uint8_t>{
                       0xF0, 0x02, 0xFF, 0xFF, 0x00, 0x48, 0xFF, 0xFF,              // LRH: VL15, LNH 2
                       0x64, 0x00, 0xFF, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,  // BTH
                       0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00});            // DETH
  REQUIRE(p.payload.size() == kMadBytes);
  CHECK(std::equal(p.payload.begin(), p.payload.end(), mad.begin()));
  CHECK(p.icrc == std::array<std::uint8_t, 4>{0xD5, 0xBF, 0x42, 0x8D});
  CHECK(p.vcrc == std::array<std::uint8_t, 2>{0xE1, 0x0B});
  CHECK(icrc_ok(p));
  CHECK(vcrc_ok(p));

  const auto view = parse_ud_send(p);
  REQUIRE(view.has_value());
  CHECK(view->lrh.vl == kSmpVl);
  CHECK(view->bth.dest_qp == 0);
  CHECK(view->deth.src_qp == 0);
  CHECK(view->deth.q_key == 0);

  build_smp_packet(p, mad, 0x0012, 0x0001, 3);  // LID-routed addressing
  CHECK(p.header[1] == 0x32);
  CHECK(p.header[3] == 0x12);
  CHECK(p.header[7] == 0x01);
  CHECK(icrc_ok(p));
  CHECK(vcrc_ok(p));
}
