// Communication Management: the seven messages' codecs byte for byte and round trip, and one
// connection's state machine (cm_connection.h) driven by hand: the exchange, lost messages and
// their retries, MRA, REJ, disconnection. tshark's reading of the messages is in
// cm_capture_tshark_test.cpp.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/big_endian.h"
#include "sim/subnet_manager/cm/cm_connection.h"
#include "sim/subnet_manager/cm/cm_messages.h"

using namespace ibfsim;

namespace {

CmReq sample_req() {
  CmReq r;
  r.local_comm_id = 0x11223344;
  r.service_id = 0x0000000001064242;
  r.local_ca_guid = 0x0002C90300000010;
  r.local_q_key = 0;
  r.local_qpn = 0x000123;
  r.responder_resources = 16;
  r.initiator_depth = 16;
  r.remote_cm_response_timeout = 20;
  r.transport = kCmTransportRc;
  r.starting_psn = 0xABCDEF;
  r.local_cm_response_timeout = 19;
  r.retry_count = 7;
  r.p_key = 0xFFFF;
  r.path_mtu = 5;
  r.rnr_retry_count = 7;
  r.max_cm_retries = 15;
  r.primary.local_lid = 2;
  r.primary.remote_lid = 3;
  r.primary.local_gid = gid_of(kDefaultGidPrefix, 0x0002C90300000011);
  r.primary.remote_gid = gid_of(kDefaultGidPrefix, 0x0002C90300000021);
  r.primary.flow_label = 0xABCDE;
  r.primary.packet_rate = 7;
  r.primary.traffic_class = 0x20;
  r.primary.hop_limit = 0xFF;
  r.primary.sl = 3;
  r.primary.subnet_local = true;
  r.primary.local_ack_timeout = 14;
  return r;
}

std::uint16_t attr(const Mad& m) { return load_be16(m.data() + 16); }

}  // namespace

TEST_CASE("CM REQ byte for byte", "[subnet_manager][cm][codec]") {
  const Mad m = encode_cm_req(sample_req(), 0x0102030405060708);
  CHECK(std::vector<std::uint8_t>(m.begin(), m.begin() + 24) ==
        std::vector<std::uint8_t>{0x01, 0x07, 0x02, 0x03, 0, 0, 0, 0, 0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,
                                  0x00, 0x10, 0, 0, 0, 0, 0, 0});
  const std::uint8_t* p = m.data() + 24;
  CHECK(std::vector<std::uint8_t>(p, p + 52) ==
        std::vector<std::uint8_t>{
            0x11, 0x22, 0x33, 0x44, 0, 0, 0, 0,              // LocalCommID, reserved
            0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x42, 0x42,  // ServiceID
            0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x10,  // LocalCAGUID
            0, 0, 0, 0, 0, 0, 0, 0,                          // reserved, Q_Key
            0x00, 0x01, 0x23, 0x10,                          // QPN, ResponderResources
            0x00, 0x00, 0x00, 0x10,                          // EECN, InitiatorDepth
            0x00, 0x00, 0x00, 0xA0,                          // RemoteEECN, 20 << 3 | RC | no E2E
            0xAB, 0xCD, 0xEF, 0x9F,                          // PSN, 19 << 3 | RetryCount 7
            0xFF, 0xFF, 0x57, 0xF0});                        // P_Key, MTU 5 | RNR 7, MaxCMRetries 15
  CHECK(std::vector<std::uint8_t>(p + 52, p + 56) == std::vector<std::uint8_t>{0x00, 0x02, 0x00, 0x03});
  CHECK(std::vector<std::uint8_t>(p + 88, p + 96) ==
        std::vector<std::uint8_t>{0xAB, 0xCD, 0xE0, 0x07, 0x20, 0xFF, 0x38, 0x70});  // flow, rate, TC, hops, SL|SubnetLocal, ACK
  for (std::size_t i = 96; i < 232; ++i) REQUIRE(p[i] == 0);  // no alternate path, private data zeros
  const CmReq r = decode_cm_req(m);
  CHECK(encode_cm_req(r, 0x0102030405060708) == m);
  CHECK(r.local_qpn == 0x123);
  CHECK(r.starting_psn == 0xABCDEF);
  CHECK(r.remote_cm_response_timeout == 20);
  CHECK(r.primary.sl == 3);
  CHECK(r.primary.flow_label == 0xABCDE);
  CHECK_FALSE(r.alternate);
}

TEST_CASE("CM REP, RTU, REJ, MRA, DREQ, DREP: fields at their bytes and round trips", "[subnet_manager][cm][codec]") {
  CmRep rep;
  rep.local_comm_id = 0xA1;
  rep.remote_comm_id = 0xB2;
  rep.local_q_key = 0x42;
  rep.local_qpn = 0x456;
  rep.starting_psn = 0x123456;
  rep.responder_resources = 4;
  rep.initiator_depth = 8;
  rep.target_ack_delay = 15;
  rep.failover_accepted = 1;
  rep.end_to_end_flow_control = true;
  rep.rnr_retry_count = 7;
  rep.srq = true;
  rep.local_ca_guid = 0x0002C90300000020;
  const Mad m = encode_cm_rep(rep, 9);
  const std::uint8_t* p = m.data() + 24;
  CHECK(attr(m) == IB_MAD_ATTR_CM_REP);
  CHECK(std::vector<std::uint8_t>(p, p + 36) ==
        std::vector<std::uint8_t>{0, 0, 0, 0xA1, 0, 0, 0, 0xB2, 0, 0, 0, 0x42, 0x00, 0x04, 0x56, 0x00, 0, 0, 0, 0,
                                  0x12, 0x34, 0x56, 0x00, 0x04, 0x08, 0x7B, 0xF0,
                                  0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x20});
  CHECK(encode_cm_rep(decode_cm_rep(m), 9) == m);

  const Mad rtu = encode_cm_rtu({0xA1, 0xB2}, 10);
  CHECK(attr(rtu) == IB_MAD_ATTR_CM_RTU);
  CHECK(decode_cm_rtu(rtu).remote_comm_id == 0xB2);

  CmRej rej;
  rej.local_comm_id = 1;
  rej.remote_comm_id = 2;
  rej.message_rejected = kCmMsgRep;
  rej.reject_info_length = 3;
  rej.reason = kCmRejConsumerReject;
  rej.ari[0] = 0x55;
  const Mad j = encode_cm_rej(rej, 11);
  CHECK(attr(j) == IB_MAD_ATTR_CM_REJ);
  CHECK(j[24 + 8] == 0x40);
  CHECK(j[24 + 9] == 0x06);
  CHECK(load_be16(j.data() + 24 + 10) == 28);
  CHECK(j[24 + 12] == 0x55);
  CHECK(encode_cm_rej(decode_cm_rej(j), 11) == j);

  const Mad mra = encode_cm_mra({1, 2, kCmMsgRep, 21}, 12);
  CHECK(attr(mra) == IB_MAD_ATTR_CM_MRA);
  CHECK(mra[24 + 8] == 0x40);
  CHECK(mra[24 + 9] == 21 << 3);
  CHECK(decode_cm_mra(mra).service_timeout == 21);

  const Mad dreq = encode_cm_dreq({1, 2, 0x789}, 13);
  CHECK(attr(dreq) == IB_MAD_ATTR_CM_DREQ);
  CHECK(std::vector<std::uint8_t>(dreq.begin() + 32, dreq.begin() + 36) == std::vector<std::uint8_t>{0, 0x07, 0x89, 0});
  CHECK(decode_cm_dreq(dreq).remote_qpn == 0x789);
  CHECK(attr(encode_cm_drep({1, 2}, 14)) == IB_MAD_ATTR_CM_DREP);
  CHECK(cm_timeout(0) == 4096 * kNs);
  CHECK(cm_timeout(20) == 4096 * kNs * (1 << 20));  // ~4.3 s
}

namespace {
struct Pair {
  CmConnection active{CmLocal{0x100, 0xA0, 0x11, 0x1000, 16, 16, 18, 3}, 1 * kUs};
  CmConnection passive{CmLocal{0x200, 0xB0, 0x22, 0x2000, 4, 8, 17, 3}, 1 * kUs};
  CmReq req() const {
    CmReq r = sample_req();
    r.remote_cm_response_timeout = 16;
    return r;
  }
};
}  // namespace

TEST_CASE("CM state machine: REQ, REP, RTU walk both QPs to RTS", "[subnet_manager][cm]") {
  Pair p;
  CmOutput a = p.active.connect(p.req());
  CHECK(p.active.state() == CmState::kReqSent);
  REQUIRE(a.send.size() == 1);
  CHECK(attr(a.send[0]) == IB_MAD_ATTR_CM_REQ);
  CHECK(a.arm_timer == cm_timeout(16) + 2 * kUs);  // the passive side's response time + 2 lifetimes
  const CmReq sent = decode_cm_req(a.send[0]);
  CHECK(sent.local_comm_id == 0x100);
  CHECK(sent.local_qpn == 0x11);
  CHECK(sent.starting_psn == 0x1000);
  CHECK(sent.max_cm_retries == 3);

  CmOutput b = p.passive.on_mad(a.send[0]);
  CHECK(p.passive.state() == CmState::kRepSent);
  REQUIRE(b.qp.size() == 1);
  CHECK(b.qp[0].step == CmQpStep::kToRtr);
  CHECK(b.qp[0].remote_qpn == 0x11);
  CHECK(b.qp[0].remote_psn == 0x1000);
  REQUIRE(b.send.size() == 1);
  const CmRep rep = decode_cm_rep(b.send[0]);
  CHECK(rep.remote_comm_id == 0x100);
  CHECK(rep.local_qpn == 0x22);
  CHECK(rep.responder_resources == 4);  // min(own 4, their initiator depth 16)
  CHECK(rep.initiator_depth == 8);
  CHECK(b.arm_timer == cm_timeout(18) + 2 * kUs);  // the active side's response time
  CHECK(load_be64(b.send[0].data() + 8) == load_be64(a.send[0].data() + 8));  // the REQ's TID

  CmOutput c = p.active.on_mad(b.send[0]);
  CHECK(p.active.state() == CmState::kEstablished);
  CHECK(c.event == CmEvent::kEstablished);
  CHECK(c.cancel_timer);
  REQUIRE(c.qp.size() == 2);
  CHECK(c.qp[0].step == CmQpStep::kToRtr);
  CHECK(c.qp[0].remote_qpn == 0x22);
  CHECK(c.qp[0].remote_psn == 0x2000);
  CHECK(c.qp[1].step == CmQpStep::kToRts);
  REQUIRE(c.send.size() == 1);
  CHECK(attr(c.send[0]) == IB_MAD_ATTR_CM_RTU);

  CmOutput d = p.passive.on_mad(c.send[0]);
  CHECK(p.passive.state() == CmState::kEstablished);
  CHECK(d.event == CmEvent::kEstablished);
  REQUIRE(d.qp.size() == 1);
  CHECK(d.qp[0].step == CmQpStep::kToRts);
  CHECK(d.send.empty());

  // Disconnection from the passive side.
  CmOutput e = p.passive.disconnect();
  CHECK(p.passive.state() == CmState::kDreqSent);
  REQUIRE(e.send.size() == 1);
  CHECK(decode_cm_dreq(e.send[0]).remote_qpn == 0x11);
  CmOutput f = p.active.on_mad(e.send[0]);
  CHECK(p.active.state() == CmState::kTimeWait);
  CHECK(f.event == CmEvent::kDisconnected);
  REQUIRE(f.send.size() == 1);
  CHECK(attr(f.send[0]) == IB_MAD_ATTR_CM_DREP);
  CmOutput g = p.passive.on_mad(f.send[0]);
  CHECK(p.passive.state() == CmState::kTimeWait);
  CHECK(g.arm_timer == 2 * kUs);
  p.passive.on_timer();
  p.active.on_timer();
  CHECK(p.passive.state() == CmState::kIdle);
  CHECK(p.active.state() == CmState::kIdle);
}

TEST_CASE("CM state machine: lost messages are sent again, then the attempt ends in REJ Timeout", "[subnet_manager][cm]") {
  Pair p;
  const CmOutput a = p.active.connect(p.req());
  // The REQ is lost three times; each timeout sends it again (MaxCMRetries 3).
  for (unsigned i = 1; i <= 3; ++i) {
    const CmOutput r = p.active.on_timer();
    REQUIRE(r.send.size() == 1);
    CHECK(r.send[0] == a.send[0]);
    CHECK(r.arm_timer == cm_timeout(16) + 2 * kUs);
    CHECK(p.active.retries() == i);
  }
  const CmOutput last = p.active.on_timer();
  CHECK(p.active.state() == CmState::kIdle);
  CHECK(last.event == CmEvent::kTimedOut);
  REQUIRE(last.send.size() == 1);
  const CmRej rej = decode_cm_rej(last.send[0]);
  CHECK(rej.reason == kCmRejTimeout);
  CHECK(rej.local_comm_id == 0x100);

  // The REP is lost: the passive side sends it again on its timer; the active side's REQ resent
  // meanwhile is answered with the same REP.
  Pair q;
  const CmOutput req = q.active.connect(q.req());
  const CmOutput rep = q.passive.on_mad(req.send[0]);
  const CmOutput again = q.passive.on_mad(req.send[0]);
  REQUIRE(again.send.size() == 1);
  CHECK(again.send[0] == rep.send[0]);
  const CmOutput timer = q.passive.on_timer();
  REQUIRE(timer.send.size() == 1);
  CHECK(timer.send[0] == rep.send[0]);
  // The RTU is lost: a REP arriving in Established gets the RTU again.
  const CmOutput rtu = q.active.on_mad(rep.send[0]);
  const CmOutput rtu_again = q.active.on_mad(rep.send[0]);
  REQUIRE(rtu_again.send.size() == 1);
  CHECK(rtu_again.send[0] == rtu.send[0]);
  CHECK(rtu_again.qp.empty());
}

TEST_CASE("CM state machine: MRA stretches the wait and REJ ends the attempt", "[subnet_manager][cm]") {
  Pair p;
  const CmOutput a = p.active.connect(p.req());
  const CmOutput m = p.active.on_mad(encode_cm_mra({0x200, 0x100, kCmMsgReq, 22}, 5));
  CHECK(m.arm_timer == cm_timeout(22) + 2 * kUs);
  CHECK(p.active.retries() == 0);
  CHECK(p.active.state() == CmState::kReqSent);
  // An MRA for another connection changes nothing.
  CHECK_FALSE(p.active.on_mad(encode_cm_mra({0x200, 0x999, kCmMsgReq, 22}, 5)).arm_timer);
  CmRej rej;
  rej.local_comm_id = 0x200;
  rej.remote_comm_id = 0x100;
  rej.reason = kCmRejConsumerReject;
  const CmOutput r = p.active.on_mad(encode_cm_rej(rej, 6));
  CHECK(r.event == CmEvent::kRejected);
  CHECK(r.cancel_timer);
  CHECK(p.active.state() == CmState::kIdle);
  (void)a;
}
