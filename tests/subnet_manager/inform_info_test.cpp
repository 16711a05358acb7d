// SA event subscriptions: InformInfo (attribute 0x0003) and the SubnAdmReport(Notice) byte for
// byte, as IBA Vol1 13.4.8 and OpenSM's ib_inform_info_t / ib_mad_notice_attr_t lay them out; the
// SA's Set of InformInfo (subscribe, unsubscribe, refusals) and which Notices a subscription
// matches (OpenSM's match_notice_to_inf_rec rules).
#include <catch2/catch.hpp>

#include <vector>

#include "sim/subnet_manager/sa/inform_info.h"
#include "sim/subnet_manager/sa/inform_subscriptions.h"
#include "sim/subnet_manager/sa/sa_report.h"

using namespace ibfsim;

TEST_CASE("InformInfo: a subscription to trap 128 from any issuer, byte for byte", "[subnet_manager][sa]") {
  InformInfo i;
  i.trap_number_or_device = 128;
  i.resp_time_value = 19;
  const auto b = encode_inform_info(i);
  // 0-15 GID 0 (any issuer); 16-17 LIDRangeBegin 0xFFFF (every LID); 18-19 LIDRangeEnd 0;
  // 20-21 reserved; 22 IsGeneric 1; 23 Subscribe 1; 24-25 Type 0xFFFF; 26-27 TrapNumber 128;
  // 28-31 QPN 1 << 8 | RespTimeValue 19; 32 reserved; 33-35 ProducerType 0xFFFFFF (any).
  const std::vector<std::uint8_t> want = {0,    0,    0,    0,    0,    0,    0, 0, 0, 0, 0, 0,
                                          0,    0,    0,    0,    0xFF, 0xFF, 0, 0, 0, 0, 1, 1,
                                          0xFF, 0xFF, 0x00, 0x80, 0,    0,    1, 19, 0, 0xFF, 0xFF, 0xFF};
  CHECK(std::vector<std::uint8_t>(b.begin(), b.end()) == want);
  CHECK(decode_inform_info(b.data()) == i);
}

TEST_CASE("InformInfo: GID, LID range, type, producer and unsubscribe round-trip at their offsets",
          "[subnet_manager][sa]") {
  InformInfo i;
  i.gid = gid_of(kDefaultGidPrefix, 0x0002C90300000010);
  i.lid_range_begin = 0x0003;
  i.lid_range_end = 0x0107;
  i.is_generic = false;
  i.subscribe = false;
  i.type = kNoticeTypeSecurity;
  i.trap_number_or_device = 0xBEEF;  // DeviceID
  i.qpn = 0xABCDEF;
  i.resp_time_value = 0x1F;
  i.producer_type_or_vendor = 0x02C903;  // VendorID
  const auto b = encode_inform_info(i);
  CHECK(b[0] == 0xFE);
  CHECK(b[1] == 0x80);
  CHECK(b[8] == 0x00);
  CHECK(b[9] == 0x02);
  CHECK(b[15] == 0x10);
  CHECK(b[16] == 0x00);
  CHECK(b[17] == 0x03);
  CHECK(b[18] == 0x01);
  CHECK(b[19] == 0x07);
  CHECK(b[22] == 0);
  CHECK(b[23] == 0);
  CHECK(b[24] == 0x00);
  CHECK(b[25] == 0x02);
  CHECK(b[26] == 0xBE);
  CHECK(b[27] == 0xEF);
  CHECK(b[28] == 0xAB);
  CHECK(b[29] == 0xCD);
  CHECK(b[30] == 0xEF);
  CHECK(b[31] == 0x1F);
  CHECK(b[33] == 0x02);
  CHECK(b[34] == 0xC9);
  CHECK(b[35] == 0x03);
  CHECK(decode_inform_info(b.data()) == i);
}

TEST_CASE("SubnAdmReport(Notice): trap 128 of switch LID 2 with its IssuerGID, byte for byte", "[subnet_manager][sa]") {
  const Gid issuer = gid_of(kDefaultGidPrefix, 0x0002C90300000010);
  const SaMad r = make_sa_report(make_trap_128(2), issuer, 0x02DAB00000000001);
  const Mad m = encode_sa_mad(r);
  // MAD header: BaseVersion 1, class 0x03, ClassVersion 2, method Report 0x06, status 0, TID,
  // attribute Notice 0x0002, modifier 0.
  const std::vector<std::uint8_t> header = {1, 3, 2, 6, 0, 0, 0, 0, 0x02, 0xDA, 0xB0, 0, 0, 0, 0, 1,
                                            0, 2, 0, 0, 0, 0, 0, 0};
  CHECK(std::vector<std::uint8_t>(m.begin(), m.begin() + 24) == header);
  for (std::size_t k = 24; k < 56; ++k) CHECK(m[k] == 0);  // no RMPP, SM_Key, offset, mask
  // The Notice at 56: 0x81 IsGeneric | urgent; ProducerType 2 (switch); TrapNumber 128;
  // IssuerLID 2; toggle/count 0; DataDetails LIDADDR 2 (at 66); IssuerGID at 120.
  const std::vector<std::uint8_t> notice = {0x81, 0, 0, 2, 0, 0x80, 0, 2, 0, 0, 0, 2};
  CHECK(std::vector<std::uint8_t>(m.begin() + 56, m.begin() + 68) == notice);
  for (std::size_t k = 68; k < 120; ++k) CHECK(m[k] == 0);
  const std::vector<std::uint8_t> gid = {0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xC9, 0x03, 0, 0, 0, 0x10};
  CHECK(std::vector<std::uint8_t>(m.begin() + 120, m.begin() + 136) == gid);
  for (std::size_t k = 136; k < 256; ++k) CHECK(m[k] == 0);

  const SaMad back = decode_sa_mad(m);
  CHECK(report_notice(back).trap_number_or_device == 128);
  CHECK(report_notice(back).issuer_lid == 2);
  CHECK(report_issuer_gid(back) == issuer);
  const Mad resp = encode_sa_mad(make_sa_report_resp(back));
  CHECK(resp[3] == 0x86);
  CHECK(std::equal(resp.begin() + 4, resp.end(), m.begin() + 4));  // everything else echoed
}

TEST_CASE("InformInfo matching: GID, LID range, IsGeneric, type, trap number and producer", "[subnet_manager][sa]") {
  const Notice n = make_trap_128(5);  // generic, urgent, switch, LID 5
  const Gid g = gid_of(kDefaultGidPrefix, 0x55);
  InformInfo i;  // everything
  CHECK(inform_matches(i, n, g));
  i.trap_number_or_device = 128;
  CHECK(inform_matches(i, n, g));
  i.trap_number_or_device = 256;
  CHECK_FALSE(inform_matches(i, n, g));
  i = InformInfo{};
  i.lid_range_begin = 6;
  i.lid_range_end = 9;
  CHECK_FALSE(inform_matches(i, n, g));
  i.lid_range_begin = 5;
  CHECK(inform_matches(i, n, g));
  i.gid = gid_of(kDefaultGidPrefix, 0x56);  // a GID overrides the LID range
  CHECK_FALSE(inform_matches(i, n, g));
  i.gid = g;
  CHECK(inform_matches(i, n, g));
  i = InformInfo{};
  i.is_generic = false;
  CHECK_FALSE(inform_matches(i, n, g));
  i = InformInfo{};
  i.type = kNoticeTypeSecurity;
  CHECK_FALSE(inform_matches(i, n, g));
  i.type = kNoticeTypeUrgent;
  CHECK(inform_matches(i, n, g));
  i.producer_type_or_vendor = kNoticeProducerCa;
  CHECK_FALSE(inform_matches(i, n, g));
  i.producer_type_or_vendor = kNoticeProducerSwitch;
  CHECK(inform_matches(i, n, g));
}

TEST_CASE("SA InformInfo Set: subscribe, subscribe again, unsubscribe, and the refusals", "[subnet_manager][sa]") {
  InformSubscriptions subs;
  InformInfo i;
  i.trap_number_or_device = 128;
  auto req = [](std::uint8_t method, const InformInfo& x) {
    SaData d{};
    const auto b = encode_inform_info(x);
    std::copy(b.begin(), b.end(), d.begin());
    return make_sa_request(method, IB_MAD_ATTR_INFORM_INFO, 0, d, 7);
  };
  SaMad a = subs.set(req(IB_MAD_METHOD_SET, i), 4, 3);
  CHECK(a.header.status == 0);
  CHECK(a.header.method == IB_MAD_METHOD_GET_RESP);
  CHECK(a.header.attribute_id == IB_MAD_ATTR_INFORM_INFO);
  CHECK(decode_inform_info(a.data.data()) == i);  // echoed
  REQUIRE(subs.all().size() == 1);
  CHECK(subs.all()[0].subscriber == 4);
  CHECK(subs.all()[0].sl == 3);
  CHECK(subs.set(req(IB_MAD_METHOD_SET, i), 4, 3).header.status == 0);
  CHECK(subs.all().size() == 1);                  // the same subscription once
  CHECK(subs.set(req(IB_MAD_METHOD_SET, i), 6, 0).header.status == 0);
  CHECK(subs.all().size() == 2);                  // another subscriber
  CHECK(subs.matching(make_trap_128(1), Gid{}).size() == 2);
  CHECK(subs.matching(make_trap_256(1, kNoticeProducerCa, Smp{}), Gid{}).empty());

  InformInfo off = i;
  off.subscribe = false;
  CHECK(subs.set(req(IB_MAD_METHOD_SET, off), 4, 3).header.status == 0);
  REQUIRE(subs.all().size() == 1);
  CHECK(subs.all()[0].subscriber == 6);
  // Unsubscribing what is not there, a QPN other than 1, a reversed LID range, Subscribe 2: invalid.
  CHECK(subs.set(req(IB_MAD_METHOD_SET, off), 4, 3).header.status == IB_SA_MAD_STATUS_REQ_INVALID);
  InformInfo bad = i;
  bad.qpn = 2;
  CHECK(subs.set(req(IB_MAD_METHOD_SET, bad), 4, 3).header.status == IB_SA_MAD_STATUS_REQ_INVALID);
  bad = i;
  bad.lid_range_begin = 9;
  bad.lid_range_end = 8;
  CHECK(subs.set(req(IB_MAD_METHOD_SET, bad), 4, 3).header.status == IB_SA_MAD_STATUS_REQ_INVALID);
  SaMad two = req(IB_MAD_METHOD_SET, i);
  two.data[23] = 2;
  CHECK(subs.set(two, 4, 3).header.status == IB_SA_MAD_STATUS_REQ_INVALID);
  // No Get of InformInfo (OpenSM answers the same).
  CHECK(subs.set(req(IB_MAD_METHOD_GET, i), 4, 3).header.status == IB_MAD_STATUS_UNSUP_METHOD_ATTR);
  CHECK(subs.all().size() == 1);
}
