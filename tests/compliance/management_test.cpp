// Management datagrams (Vol1 ch13-14): R38 MAD size, version and QP0/QP1 classes; R39 the
// directed-route walk and D = 1 responses; R41 M_Key protection. These rules are checked on the
// pure MAD layer (sim/subnet_manager), which the in-band SMA and SM are built on.
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "sim/subnet_manager/mad/directed_route.h"
#include "sim/subnet_manager/mad/m_key_check.h"
#include "sim/subnet_manager/mad/mad_acceptance.h"
#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/mad/port_info.h"
#include "sim/subnet_manager/mad/smp.h"
#include "sim/subnet_manager/mad/smp_packet.h"

using namespace ibfsim;

namespace {
Mad mad_of_class(std::uint8_t mgmt_class) {
  Mad m{};
  MadHeader h;
  h.mgmt_class = mgmt_class;
  h.method = IB_MAD_METHOD_GET;
  encode_mad_header(h, m.data());
  return m;
}
}  // namespace

TEST_CASE("R38 (ch13): QP0 accepts only 256-byte MADs with BaseVersion 1 of classes 0x01 and 0x81",
          "[compliance][R38][ch13]") {
  for (unsigned cls = 0; cls < 256; ++cls) {
    INFO("class " << cls);
    const Mad m = mad_of_class(static_cast<std::uint8_t>(cls));
    CHECK(qp0_accepts(m.data(), m.size()) == (cls == 0x01 || cls == 0x81));
  }
  const Mad dr = encode_smp(make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 1, {1}));
  CHECK(qp0_accepts(dr.data(), kMadBytes));
  CHECK_FALSE(qp0_accepts(dr.data(), kMadBytes - 1));
  CHECK_FALSE(qp0_accepts(dr.data(), 0));
  std::vector<std::uint8_t> longer(dr.begin(), dr.end());
  longer.push_back(0);
  CHECK_FALSE(qp0_accepts(longer.data(), longer.size()));
  CHECK_FALSE(qp0_accepts(nullptr, kMadBytes));
  for (std::uint8_t version : {0, 2, 0xFF}) {
    Mad bad = dr;
    bad[0] = version;
    CHECK_FALSE(qp0_accepts(bad.data(), bad.size()));
  }
  Mad class_v2 = dr;  // an unsupported ClassVersion is answered with a status, not discarded
  class_v2[2] = 2;
  CHECK(qp0_accepts(class_v2.data(), class_v2.size()));
}

TEST_CASE("R38 (ch13): QP1 takes every other class under the same size and version rules",
          "[compliance][R38][ch13]") {
  for (unsigned cls = 0; cls < 256; ++cls) {
    INFO("class " << cls);
    const Mad m = mad_of_class(static_cast<std::uint8_t>(cls));
    CHECK(qp1_accepts(m.data(), m.size()) == (cls != 0x01 && cls != 0x81));
  }
  Mad sa = mad_of_class(IB_MCLASS_SUBN_ADM);
  CHECK_FALSE(qp1_accepts(sa.data(), 128));
  sa[0] = 2;
  CHECK_FALSE(qp1_accepts(sa.data(), sa.size()));
}

TEST_CASE("R38 (ch13): every SMP we encode and put on the wire is a 256-byte BaseVersion 1 MAD",
          "[compliance][R38][ch13]") {
  Smp lid_routed;
  lid_routed.mgmt_class = IB_MCLASS_SUBN_LID;
  for (const Smp& smp : {make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 1, 2, {1, 2}),
                         lid_routed}) {
    const Mad m = encode_smp(smp);
    CHECK(m.size() == 256);
    CHECK(m[0] == 1);
    CHECK(qp0_accepts(m.data(), m.size()));
    Packet p;
    build_smp_packet(p, m, 0xFFFF, 0xFFFF);
    CHECK(p.payload_len == 256);
    CHECK(p.pad_len == 0);
  }
}

TEST_CASE("R39 (ch14): each hop records its arrival port at HopPointer, and the response retraces "
          "the path with D = 1",
          "[compliance][R39][ch14]") {
  // SM CA port 2 -> S1 in 7 out 12 -> S2 in 1 out 1 -> S3 in 33 out 20 -> CA port 1 (HopCount 4).
  const DrNode ca{false, 2}, sw{true, 36};
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORT_INFO, 0, 9, {2, 12, 1, 20});
  CHECK_FALSE(smp.direction);
  struct Hop {
    DrNode node;
    PortNum in;
    DrDecision expect;
    std::uint8_t hop_pointer_after;
  };
  const DrDecision process{DrAction::kProcess, 0, 0, DrDropReason::kNone};
  auto fwd = [](PortNum p) { return DrDecision{DrAction::kForward, p, 0, DrDropReason::kNone}; };
  const std::vector<Hop> out = {{ca, kDrLocal, fwd(2), 1},
                                {sw, 7, fwd(12), 2},
                                {sw, 1, fwd(1), 3},
                                {sw, 33, fwd(20), 4},
                                {ca, 1, process, 5}};
  for (std::size_t i = 0; i < out.size(); ++i) {
    INFO("outgoing step " << i);
    smp = *decode_smp(encode_smp(smp).data());
    CHECK(dr_route(smp, out[i].node, out[i].in) == out[i].expect);
    CHECK(smp.hop_pointer == out[i].hop_pointer_after);
    if (i > 0) CHECK(smp.return_path[i] == out[i].in);
  }
  for (std::uint8_t method : {IB_MAD_METHOD_GET, IB_MAD_METHOD_SET}) {
    Smp req = smp;
    req.method = method;
    Smp resp = make_smp_response(req);
    CHECK(resp.direction);
    CHECK(resp.method == IB_MAD_METHOD_GET_RESP);
    CHECK((encode_smp(resp)[4] & 0x80) != 0);  // D is status bit 15 on the wire
    const std::vector<Hop> back = {{ca, kDrLocal, fwd(1), 4},
                                   {sw, 20, fwd(33), 3},
                                   {sw, 1, fwd(1), 2},
                                   {sw, 12, fwd(7), 1},
                                   {ca, 2, process, 0}};
    for (std::size_t i = 0; i < back.size(); ++i) {
      INFO("returning step " << i);
      resp = *decode_smp(encode_smp(resp).data());
      CHECK(resp.direction);
      CHECK(dr_route(resp, back[i].node, back[i].in) == back[i].expect);
      CHECK(resp.hop_pointer == back[i].hop_pointer_after);
    }
  }
}

TEST_CASE("R39 (ch14): a HopCount above 63 is neither forwarded nor processed",
          "[compliance][R39][ch14]") {
  Smp smp = make_dr_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_INFO, 0, 10,
                            std::vector<PortNum>(63, 1));
  CHECK(smp.hop_count == 63);
  CHECK(dr_route(smp, DrNode{false, 1}, kDrLocal).action == DrAction::kForward);
  for (unsigned count : {64u, 100u, 255u}) {
    Smp s = smp;
    s.hop_count = static_cast<std::uint8_t>(count);
    s.hop_pointer = 0;
    CHECK(dr_route(s, DrNode{false, 1}, kDrLocal) ==
          DrDecision{DrAction::kDrop, 0, 0, DrDropReason::kHopCountTooLarge});
    s.hop_pointer = static_cast<std::uint8_t>(count + 1);
    s.direction = true;
    CHECK(dr_route(s, DrNode{false, 1}, kDrLocal).action == DrAction::kDrop);
  }
}

TEST_CASE("R41 (ch14): an SMP with the wrong M_Key is acted on only as the protection level allows",
          "[compliance][R41][ch14]") {
  const std::uint64_t port_key = 0x1122334455667788, wrong = 0xBAD;
  for (std::uint8_t level = 0; level < 4; ++level) {
    INFO("M_KeyProtectBits " << int(level));
    // A matching M_Key, or a port without one, always passes.
    for (std::uint8_t method :
         {IB_MAD_METHOD_GET, IB_MAD_METHOD_SET, IB_MAD_METHOD_TRAP_REPRESS}) {
      CHECK(check_m_key(port_key, level, method, port_key) == MKeyCheck::kAccept);
      CHECK(check_m_key(0, level, method, wrong) == MKeyCheck::kAccept);
    }
    // SubnSet and SubnTrapRepress with the wrong M_Key are ignored and counted at every level.
    CHECK(check_m_key(port_key, level, IB_MAD_METHOD_SET, wrong) == MKeyCheck::kViolation);
    CHECK(check_m_key(port_key, level, IB_MAD_METHOD_TRAP_REPRESS, wrong) ==
          MKeyCheck::kViolation);
  }
  // SubnGet: level 0 answers, level 1 answers without revealing the M_Key, 2 and 3 refuse.
  CHECK(check_m_key(port_key, 0, IB_MAD_METHOD_GET, wrong) == MKeyCheck::kAccept);
  CHECK(check_m_key(port_key, 1, IB_MAD_METHOD_GET, wrong) == MKeyCheck::kAcceptHiddenMKey);
  CHECK(check_m_key(port_key, 2, IB_MAD_METHOD_GET, wrong) == MKeyCheck::kViolation);
  CHECK(check_m_key(port_key, 3, IB_MAD_METHOD_GET, wrong) == MKeyCheck::kViolation);

  // The M_Key an SMP carries and the port's protection bits are where the SMA reads them.
  Smp set = make_dr_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_PORT_INFO, 1, 11, {1}, wrong);
  PortInfo pi;
  pi.m_key = port_key;
  pi.m_key_protect_bits = 2;
  set.data = encode_port_info(pi);
  const Smp got = *decode_smp(encode_smp(set).data());
  const PortInfo port = decode_port_info(got.data.data());
  CHECK(check_m_key(port.m_key, port.m_key_protect_bits, got.method, got.m_key) ==
        MKeyCheck::kViolation);
}
