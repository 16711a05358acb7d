// Notice (attribute 0x0002): trap 256 (Bad M_Key) byte for byte, as OpenSM's ib_mad_notice_attr_t
// (ntc_256) and the Linux SMAs lay it out.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/linear_forwarding_table.h"
#include "sim/subnet_manager/mad/notice.h"

using namespace ibfsim;

TEST_CASE("trap 256: generic, security, the issuer's LID, the refused SMP's method, attribute, modifier, key and "
          "return path") {
  Smp bad = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_LIN_FWD_TBL, 0x12345678, 1, {1, 35, 4}, 0x1234);
  bad.dr_slid = 0xFFFF;
  bad.return_path[1] = 35;  // as the walk leaves them at the target: arrival ports hop by hop
  bad.return_path[2] = 36;
  bad.return_path[3] = 9;
  const SmpData d = encode_notice(make_trap_256(10, kNoticeProducerSwitch, bad));
  CHECK(d[0] == 0x82);                                         // IsGeneric | type 2 (security)
  CHECK((d[1] << 16 | d[2] << 8 | d[3]) == 2);                 // ProducerType: switch
  CHECK((d[4] << 8 | d[5]) == 256);                            // TrapNumber
  CHECK((d[6] << 8 | d[7]) == 10);                             // IssuerLID
  const std::uint8_t* dd = d.data() + 10;                      // DataDetails
  CHECK((dd[2] << 8 | dd[3]) == 10);                           // LIDADDR
  CHECK((dd[4] << 8 | dd[5]) == 0xFFFF);                       // DRSLID
  CHECK(dd[6] == IB_MAD_METHOD_SET);
  CHECK((dd[8] << 8 | dd[9]) == IB_MAD_ATTR_LIN_FWD_TBL);
  CHECK((std::uint32_t{dd[10]} << 24 | dd[11] << 16 | dd[12] << 8 | dd[13]) == 0x12345678u);
  std::uint64_t key = 0;
  for (int i = 0; i < 8; ++i) key = key << 8 | dd[14 + i];
  CHECK(key == 0x1234);
  CHECK(dd[23] == (0x80 | 3));                                 // DRNotice, not truncated, 3 hops
  CHECK(dd[24] == 35);
  CHECK(dd[25] == 36);
  CHECK(dd[26] == 9);
  CHECK(dd[27] == 0);
  const Notice back = decode_notice(d.data());
  CHECK(back.trap_number_or_device == kTrapBadMKey);
  CHECK(back.type == kNoticeTypeSecurity);
}

TEST_CASE("trap 256 of a LID-routed SMP has no directed-route part") {
  Smp bad = make_dr_request(IB_MAD_METHOD_GET, 0x0015, 2, 1, {}, 0x99);
  bad.mgmt_class = IB_MCLASS_SUBN_LID;
  const SmpData d = encode_notice(make_trap_256(3, kNoticeProducerCa, bad));
  CHECK((d[1] << 16 | d[2] << 8 | d[3]) == 1);  // ProducerType: CA
  for (int i = 4; i < 6; ++i) CHECK(d[10 + i] == 0);  // DRSLID
  for (int i = 23; i < 54; ++i) CHECK(d[10 + i] == 0);
}
