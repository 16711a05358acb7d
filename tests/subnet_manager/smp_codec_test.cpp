// SMP codec: exact bytes of directed-route and LID-routed SMPs, round trips, class rejection, and
// the responses an agent builds.
#include <catch2/catch.hpp>
#include <cstdint>
#include <initializer_list>
#include <stdexcept>

#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/smp.h"

using namespace ibfsim;

namespace {
void put(Mad& m, std::size_t at, std::initializer_list<std::uint8_t> bytes) {
  for (std::uint8_t b : bytes) m[at++] = b;
}

Smp dr_get() {
  Smp s;
  s.mgmt_class = IB_MCLASS_SUBN_DIR;
  s.method = IB_MAD_METHOD_GET;
  s.hop_count = 3;
  s.transaction_id = 0x1122334455667788;
  s.attribute_id = IB_MAD_ATTR_NODE_INFO;
  s.m_key = 0x0123456789ABCDEF;
  s.initial_path[1] = 1;
  s.initial_path[2] = 5;
  s.initial_path[3] = 7;
  s.data[0] = 0xAA;
  s.data[63] = 0xBB;
  return s;
}

void require_same(const Smp& a, const Smp& b) {
  CHECK(a.mgmt_class == b.mgmt_class);
  CHECK(a.base_version == b.base_version);
  CHECK(a.class_version == b.class_version);
  CHECK(a.method == b.method);
  CHECK(a.status == b.status);
  CHECK(a.direction == b.direction);
  CHECK(a.hop_pointer == b.hop_pointer);
  CHECK(a.hop_count == b.hop_count);
  CHECK(a.transaction_id == b.transaction_id);
  CHECK(a.attribute_id == b.attribute_id);
  CHECK(a.attribute_modifier == b.attribute_modifier);
  CHECK(a.m_key == b.m_key);
  CHECK(a.dr_slid == b.dr_slid);
  CHECK(a.dr_dlid == b.dr_dlid);
  CHECK(a.data == b.data);
  CHECK(a.initial_path == b.initial_path);
  CHECK(a.return_path == b.return_path);
}
}  // namespace

TEST_CASE("A directed-route SMP puts M_Key, DrSLID/DrDLID, data and both paths at their offsets",
          "[subnet_manager][codec]") {
  Smp s = dr_get();
  s.return_path[1] = 2;
  s.return_path[63] = 9;
  Mad expected{};
  put(expected, 0, {0x01, 0x81, 0x01, 0x01, 0x00, 0x00, 0x00, 0x03});  // D=0, HopPtr 0, HopCnt 3
  put(expected, 8, {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88});
  put(expected, 16, {0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00});
  put(expected, 24, {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF});  // M_Key
  put(expected, 32, {0xFF, 0xFF, 0xFF, 0xFF});                          // DrSLID, DrDLID
  expected[64] = 0xAA;                                                  // SMP data 64..127
  expected[127] = 0xBB;
  put(expected, 128, {0x00, 0x01, 0x05, 0x07});                          // InitialPath
  put(expected, 192, {0x00, 0x02});                                      // ReturnPath
  expected[255] = 0x09;
  REQUIRE(encode_smp(s) == expected);
}

TEST_CASE("The D bit is status bit 15 and ClassSpecific is HopPointer then HopCount",
          "[subnet_manager][codec]") {
  Smp s = dr_get();
  s.method = IB_MAD_METHOD_GET_RESP;
  s.direction = true;
  s.status = IB_MAD_STATUS_INVALID_FIELD;
  s.hop_pointer = 4;
  s.dr_slid = 0x0001;
  s.dr_dlid = 0xBFFF;
  Mad m = encode_smp(s);
  CHECK(m[3] == 0x81);
  CHECK(m[4] == 0x80);
  CHECK(m[5] == 0x1C);
  CHECK(m[6] == 0x04);
  CHECK(m[7] == 0x03);
  CHECK(m[32] == 0x00);
  CHECK(m[33] == 0x01);
  CHECK(m[34] == 0xBF);
  CHECK(m[35] == 0xFF);
  // A DR status is 15 bits: bit 15 always comes from `direction`.
  s.direction = false;
  s.status = 0xFFFF;
  m = encode_smp(s);
  CHECK(m[4] == 0x7F);
  CHECK(m[5] == 0xFF);
}

TEST_CASE("A LID-routed SMP has a 16-bit status and writes no directed-route field",
          "[subnet_manager][codec]") {
  Smp s = dr_get();
  s.mgmt_class = IB_MCLASS_SUBN_LID;
  s.method = IB_MAD_METHOD_SET;
  s.status = 0x8004;
  s.direction = true;    // not part of class 0x01
  s.hop_pointer = 2;     // reserved
  s.dr_slid = 0x1234;    // reserved
  s.return_path[5] = 3;  // reserved
  Mad expected{};
  put(expected, 0, {0x01, 0x01, 0x01, 0x02, 0x80, 0x04, 0x00, 0x00});
  put(expected, 8, {0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88});
  put(expected, 16, {0x00, 0x11, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00});
  put(expected, 24, {0x01, 0x23, 0x45, 0x67, 0x89, 0xAB, 0xCD, 0xEF});
  expected[64] = 0xAA;
  expected[127] = 0xBB;
  REQUIRE(encode_smp(s) == expected);

  const Smp d = *decode_smp(expected.data());
  CHECK(d.mgmt_class == IB_MCLASS_SUBN_LID);
  CHECK(d.status == 0x8004);
  CHECK_FALSE(d.direction);
  CHECK(d.hop_pointer == 0);
  CHECK(d.hop_count == 0);
  CHECK(d.dr_slid == 0);
  CHECK(d.dr_dlid == 0);
  CHECK(d.initial_path == SmpPath{});
  CHECK(d.data == s.data);
}

TEST_CASE("SMPs round-trip through the codec", "[subnet_manager][codec]") {
  Smp dr = dr_get();
  dr.direction = true;
  dr.status = 0x7FFF;
  dr.hop_pointer = 63;
  dr.hop_count = 63;
  dr.attribute_modifier = 0xFFFFFFFF;
  dr.dr_slid = 0x0007;
  dr.dr_dlid = 0x0042;
  for (std::size_t i = 0; i < kSmpPathBytes; ++i) {
    dr.initial_path[i] = static_cast<PortNum>(i + 1);
    dr.return_path[i] = static_cast<PortNum>(200 - i);
    dr.data[i] = static_cast<std::uint8_t>(i * 3);
  }
  const Mad m = encode_smp(dr);
  require_same(*decode_smp(m.data()), dr);

  Smp lid = dr_get();
  lid.mgmt_class = IB_MCLASS_SUBN_LID;
  lid.status = 0xFFFF;
  lid.hop_count = 0;
  lid.dr_slid = 0;
  lid.dr_dlid = 0;
  lid.initial_path = {};
  require_same(*decode_smp(encode_smp(lid).data()), lid);
}

TEST_CASE("decode_smp rejects MADs of other classes", "[subnet_manager][codec]") {
  Mad m = encode_smp(dr_get());
  for (std::uint8_t cls : {IB_MCLASS_SUBN_ADM, IB_MCLASS_PERF, IB_MCLASS_CC, std::uint8_t{0x00},
                           std::uint8_t{0x02}, std::uint8_t{0x80}}) {
    m[1] = cls;
    CHECK_FALSE(decode_smp(m.data()).has_value());
  }
}

TEST_CASE("An SMP response is GetResp (Trap: TrapRepress) with D = 1 and the walk state kept",
          "[subnet_manager][codec]") {
  Smp req = dr_get();
  req.hop_pointer = 4;
  req.return_path[1] = 1;
  req.return_path[2] = 2;
  req.return_path[3] = 3;
  const Smp resp = make_smp_response(req, IB_MAD_STATUS_UNSUP_METHOD_ATTR | IB_SMP_DIRECTION);
  CHECK(resp.method == IB_MAD_METHOD_GET_RESP);
  CHECK(resp.direction);
  CHECK(resp.status == IB_MAD_STATUS_UNSUP_METHOD_ATTR);  // the D bit is not status
  CHECK(resp.hop_pointer == 4);
  CHECK(resp.hop_count == 3);
  CHECK(resp.transaction_id == req.transaction_id);
  CHECK(resp.attribute_id == req.attribute_id);
  CHECK(resp.m_key == req.m_key);
  CHECK(resp.initial_path == req.initial_path);
  CHECK(resp.return_path == req.return_path);
  const Mad m = encode_smp(resp);
  CHECK(m[3] == 0x81);
  CHECK(m[4] == 0x80);
  CHECK(m[5] == 0x0C);

  req.method = IB_MAD_METHOD_SET;
  CHECK(make_smp_response(req).method == IB_MAD_METHOD_GET_RESP);
  req.mgmt_class = IB_MCLASS_SUBN_LID;
  req.method = IB_MAD_METHOD_TRAP;
  const Smp repress = make_smp_response(req, 0x8001);
  CHECK(repress.method == IB_MAD_METHOD_TRAP_REPRESS);
  CHECK_FALSE(repress.direction);  // LID-routed: no D bit
  CHECK(repress.status == 0x8001);
  for (std::uint8_t method : {IB_MAD_METHOD_GET_RESP, IB_MAD_METHOD_SEND, IB_MAD_METHOD_REPORT}) {
    req.method = method;
    CHECK_THROWS_AS(make_smp_response(req), std::invalid_argument);
  }
}
