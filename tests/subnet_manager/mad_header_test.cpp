// Common MAD header codec: exact bytes, round trips, reserved bytes, and the OpenSM constants.
#include <array>
#include <catch2/catch.hpp>
#include <cstdint>

#include "sim/subnet_manager/mad/mad_header.h"

using namespace ibfsim;

TEST_CASE("MAD header encodes every field at its offset, big-endian", "[subnet_manager][codec]") {
  MadHeader h;
  h.base_version = 1;
  h.mgmt_class = IB_MCLASS_SUBN_LID;
  h.class_version = 1;
  h.method = IB_MAD_METHOD_SET;
  h.status = IB_MAD_STATUS_INVALID_FIELD;
  h.class_specific = 0x1234;
  h.transaction_id = 0x0102030405060708;
  h.attribute_id = 0x0015;
  h.attribute_modifier = 0x00000003;
  std::array<std::uint8_t, 26> out{};
  out.fill(0xAA);
  encode_mad_header(h, out.data());
  const std::array<std::uint8_t, 26> expected = {
      0x01, 0x01, 0x01, 0x02, 0x00, 0x1C, 0x12, 0x34,  // versions, class, method, status, class specific
      0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,  // TID
      0x00, 0x15, 0x00, 0x00, 0x00, 0x00, 0x00, 0x03,  // attribute, reserved, modifier
      0xAA, 0xAA};                                     // nothing past 24 bytes
  REQUIRE(out == expected);
}

TEST_CASE("MAD header round-trips and ignores the reserved bytes", "[subnet_manager][codec]") {
  for (const MadHeader& h :
       {MadHeader{}, MadHeader{1, IB_MCLASS_SUBN_DIR, 1, IB_MAD_METHOD_GET_RESP, 0x801C, 0x0403,
                               ~0ULL, 0xFFFF, 0xFFFFFFFF},
        MadHeader{0xFF, IB_MCLASS_PERF, 0x02, IB_MAD_METHOD_TRAP_REPRESS, 0x0100, 0, 1, 0x0020, 5}}) {
    std::array<std::uint8_t, kMadHeaderBytes> bytes{};
    encode_mad_header(h, bytes.data());
    bytes[18] = 0xBE;  // reserved
    bytes[19] = 0xEF;
    const MadHeader d = decode_mad_header(bytes.data());
    CHECK(d.base_version == h.base_version);
    CHECK(d.mgmt_class == h.mgmt_class);
    CHECK(d.class_version == h.class_version);
    CHECK(d.method == h.method);
    CHECK(d.status == h.status);
    CHECK(d.class_specific == h.class_specific);
    CHECK(d.transaction_id == h.transaction_id);
    CHECK(d.attribute_id == h.attribute_id);
    CHECK(d.attribute_modifier == h.attribute_modifier);
  }
}

TEST_CASE("MAD method and status constants have OpenSM's values", "[subnet_manager][codec]") {
  CHECK(kMadBytes == 256);
  CHECK(IB_MAD_METHOD_GET == 0x01);
  CHECK(IB_MAD_METHOD_SET == 0x02);
  CHECK(IB_MAD_METHOD_SEND == 0x03);
  CHECK(IB_MAD_METHOD_TRAP == 0x05);
  CHECK(IB_MAD_METHOD_REPORT == 0x06);
  CHECK(IB_MAD_METHOD_TRAP_REPRESS == 0x07);
  CHECK(IB_MAD_METHOD_GET_RESP == 0x81);
  CHECK(IB_MAD_METHOD_REPORT_RESP == 0x86);
  CHECK(IB_MAD_STATUS_BUSY == 0x0001);
  CHECK(IB_MAD_STATUS_REDIRECT == 0x0002);
  CHECK(IB_MAD_STATUS_UNSUP_CLASS_VER == 0x0004);
  CHECK(IB_MAD_STATUS_UNSUP_METHOD == 0x0008);
  CHECK(IB_MAD_STATUS_UNSUP_METHOD_ATTR == 0x000C);
  CHECK(IB_MAD_STATUS_INVALID_FIELD == 0x001C);
  CHECK(is_response_method(IB_MAD_METHOD_GET_RESP));
  CHECK(is_response_method(IB_MAD_METHOD_GETTABLE_RESP));
  CHECK_FALSE(is_response_method(IB_MAD_METHOD_GET));
  CHECK_FALSE(is_response_method(IB_MAD_METHOD_TRAP_REPRESS));  // not an R-bit response
}
