// IPoIB connected mode's codecs (ipoib_cm.h): the connected-mode flag in an ARP hardware address,
// the service ID an interface listens on, and the REQ's and REP's 8 bytes of private data, checked
// byte by byte inside whole CM MADs.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/subnet_manager/cm/cm_messages.h"
#include "sim/transport/ipoib/ipoib_arp.h"
#include "sim/transport/ipoib/ipoib_cm.h"

using namespace ibfsim;

TEST_CASE("IPoIB CM: an ARP reply's hardware address carries the connected-mode flag before the QPN",
          "[transport][ipoib]") {
  IpoibArp a;
  a.operation = kArpReply;
  a.sender_hw.flags = kIpoibHwConnected;
  a.sender_hw.qpn = 0x000101;
  a.sender_ip = {10, 0, 0, 3};
  a.target_ip = {10, 0, 0, 2};
  std::uint8_t b[kIpoibArpBytes];
  encode_ipoib_arp(a, b);
  // ARP: hardware type 2, protocol type 2, two lengths, operation 2, then the sender's address.
  CHECK(b[8] == 0x80);  // Linux's IPOIB_FLAGS_RC
  CHECK(b[9] == 0x00);
  CHECK(b[10] == 0x01);
  CHECK(b[11] == 0x01);
  const auto d = decode_ipoib_arp(b);
  REQUIRE(d.has_value());
  CHECK((d->sender_hw.flags & kIpoibHwConnected) != 0);
  CHECK(d->sender_hw.qpn == 0x000101);
  CHECK(d->target_hw.flags == 0);
}

TEST_CASE("IPoIB CM: the service ID is 0x1000000000000000 or'ed with the listener's UD QPN", "[transport][ipoib]") {
  CHECK(ipoib_cm_service_id(0x000101) == 0x1000000000000101ull);
  CHECK(ipoib_cm_service_id(0xABCDEF) == 0x1000000000ABCDEFull);
  CHECK(ipoib_cm_service_id(0x1ABCDEF) == 0x1000000000ABCDEFull);  // 24 bits of QPN
}

TEST_CASE("IPoIB CM: private data is the sender's UD QPN and buffer size, big-endian, in the REQ and REP",
          "[transport][ipoib]") {
  std::uint8_t b[kIpoibCmDataBytes];
  encode_ipoib_cm_data(IpoibCmData{0x000102, 65524}, b);
  CHECK(std::vector<std::uint8_t>(b, b + 8) == std::vector<std::uint8_t>{0, 0, 0x01, 0x02, 0, 0, 0xFF, 0xF4});
  CHECK(decode_ipoib_cm_data(b) == IpoibCmData{0x000102, 65524});

  CmReq req;
  req.service_id = ipoib_cm_service_id(0x000101);
  encode_ipoib_cm_data(IpoibCmData{0x000102, 65524}, req.private_data.data());
  const Mad m = encode_cm_req(req, 1);
  // The REQ's message starts at MAD byte 24; its ServiceID at 8, its PrivateData at 140 (92 bytes).
  CHECK(std::vector<std::uint8_t>(m.begin() + 24 + 8, m.begin() + 24 + 16) ==
        std::vector<std::uint8_t>{0x10, 0, 0, 0, 0, 0, 0x01, 0x01});
  CHECK(std::vector<std::uint8_t>(m.begin() + 24 + 140, m.begin() + 24 + 148) ==
        std::vector<std::uint8_t>{0, 0, 0x01, 0x02, 0, 0, 0xFF, 0xF4});
  CHECK(decode_cm_req(m).private_data == req.private_data);

  CmRep rep;
  encode_ipoib_cm_data(IpoibCmData{0x000103, 4096 + 4}, rep.private_data.data());
  const Mad r = encode_cm_rep(rep, 1);
  // The REP's PrivateData at message byte 36 (196 bytes).
  CHECK(std::vector<std::uint8_t>(r.begin() + 24 + 36, r.begin() + 24 + 44) ==
        std::vector<std::uint8_t>{0, 0, 0x01, 0x03, 0, 0, 0x10, 0x04});
  CHECK(decode_ipoib_cm_data(decode_cm_rep(r).private_data.data()) == IpoibCmData{0x000103, 4100});
}
