// One UD SEND, two builders: the traffic generator's QPs build their datagrams with build_ud_send
// (ud_send_packet.h), verbs UD QPs theirs with build_transport_packet (transport_packet.h). Both
// are QueuePairs now, so the two must write the same bytes for the same fields: checked here on
// the codecs, then on the QPs themselves (QueuePair::build_datagram against a posted verbs SEND).
#include <catch2/catch.hpp>

#include <cstdint>
#include <vector>

#include "sim/core/packet.h"
#include "sim/transport/queue_pair.h"
#include "sim/transport/transport_packet.h"
#include "sim/transport/ud_send_packet.h"

using namespace ibfsim;
using namespace ibfsim::verbs;

namespace {

// Everything of a packet that goes on the wire.
void require_same_wire_bytes(const Packet& a, const Packet& b) {
  REQUIRE(a.header_len == b.header_len);
  REQUIRE(std::vector<std::uint8_t>(a.header.begin(), a.header.begin() + a.header_len) ==
          std::vector<std::uint8_t>(b.header.begin(), b.header.begin() + b.header_len));
  REQUIRE(a.payload_len == b.payload_len);
  REQUIRE(a.pad_len == b.pad_len);
  REQUIRE(a.has_icrc == b.has_icrc);
  REQUIRE(a.payload == b.payload);
  REQUIRE(a.icrc == b.icrc);
  REQUIRE(a.vcrc == b.vcrc);
  std::vector<std::uint8_t> fa, fb;
  a.write_frame(fa);
  b.write_frame(fb);
  REQUIRE(fa == fb);
}

// The HCA side of a QP, with fixed port attributes: LID 0x21, SL s -> VL s mod 4, P_Key table
// {0xFFFF}.
struct StubEnv : TransportEnv {
  HostMemory mem;
  MrTable mr_table;
  bool carry = false;
  int wakes = 0;
  Time now() const override { return 0; }
  HostMemory& memory() override { return mem; }
  MrTable& mrs() override { return mr_table; }
  bool carry_payload() const override { return carry; }
  void wake(QueuePair&) override { ++wakes; }
  void arm_timer(QueuePair&, std::uint8_t, Time, std::uint64_t) override {}
  void complete(QueuePair&, bool, const ibv_wc&) override {}
  Lid port_lid(PortNum) const override { return 0x21; }
  std::uint16_t port_p_key(PortNum, std::uint16_t index) const override { return index == 0 ? 0xFFFF : 0; }
  std::uint8_t sl_to_vl(PortNum, std::uint8_t sl) const override { return sl % 4; }
  Grh port_grh_source(PortNum) const override { return Grh{}; }
  void async_event(const ibv_async_event&) override {}
};

// A verbs UD QP numbered `qpn` in RTS with Q_Key `q_key`.
QueuePair verbs_ud_qp(StubEnv& env, Qpn qpn, std::uint32_t q_key) {
  ibv_qp_init_attr init;
  init.qp_type = IBV_QPT_UD;
  init.send_cq = init.recv_cq = 1;
  QueuePair q(env, qpn, 1, init);
  ibv_qp_attr a;
  a.qp_state = IBV_QPS_INIT;
  a.qkey = q_key;
  REQUIRE(q.modify(a, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_QKEY) == 0);
  a.qp_state = IBV_QPS_RTR;
  REQUIRE(q.modify(a, IBV_QP_STATE) == 0);
  a.qp_state = IBV_QPS_RTS;
  REQUIRE(q.modify(a, IBV_QP_STATE | IBV_QP_SQ_PSN) == 0);
  return q;
}

}  // namespace

TEST_CASE("build_ud_send and build_transport_packet write the same UD SEND Only", "[transport][codec]") {
  for (std::uint32_t len : {0u, 1u, 2u, 3u, 4u, 5u, 7u, 8u, 9u, 256u, 4093u, 4096u})
    for (bool imm : {false, true})
      for (bool se : {false, true})
        for (bool carried : {false, true}) {
          INFO("payload " << len << " imm " << imm << " se " << se << " carried " << carried);
          std::vector<std::uint8_t> data(len);
          for (std::uint32_t i = 0; i < len; ++i) data[i] = static_cast<std::uint8_t>(i * 7 + 1);
          UdSendFields f;
          f.vl = 3;
          f.sl = 11;
          f.dlid = 0xBEEF;
          f.slid = 0x0042;
          f.se = se;
          f.p_key = 0x8001;
          f.dest_qp = 0xABCDEF;
          f.psn = 0xFFFFFF;
          f.q_key = 0x80010000;
          f.src_qp = 0x123456;
          if (imm) f.imm = 0xDEADBEEF;
          Packet a;
          build_ud_send(a, f, len, carried ? data.data() : nullptr);

          TransportHeaders h;
          h.lrh.vl = f.vl;
          h.lrh.sl = f.sl;
          h.lrh.dlid = f.dlid;
          h.lrh.slid = f.slid;
          h.bth.opcode = imm ? kOpcodeUdSendOnlyImm : kOpcodeUdSendOnly;
          h.bth.se = se;
          h.bth.p_key = f.p_key;
          h.bth.dest_qp = f.dest_qp;
          h.bth.psn = f.psn;
          h.deth = {f.q_key, f.src_qp};
          h.imm = imm ? *f.imm : 0;
          Packet b;
          build_transport_packet(b, h, len, carried ? data.data() : nullptr);
          require_same_wire_bytes(a, b);
        }
}

TEST_CASE("A generator QP's datagram is the verbs UD QP's SEND of the same fields, PSN after PSN",
          "[transport][qp]") {
  for (bool carried : {false, true}) {
    INFO("carried " << carried);
    StubEnv verbs_env, gen_env;
    verbs_env.carry = gen_env.carry = carried;
    QueuePair v = verbs_ud_qp(verbs_env, 0x104, 0x11111111);
    auto g = QueuePair::make_generator(gen_env, 0x104, 0x11111111);
    REQUIRE(g->is_generator());
    REQUIRE_FALSE(v.is_generator());
    REQUIRE(g->type() == IBV_QPT_UD);
    REQUIRE(g->state() == IBV_QPS_RTS);
    REQUIRE(g->port() == 1);
    REQUIRE(g->attr().qkey == 0x11111111);
    const std::uint64_t buf = verbs_env.mem.alloc(8192);
    const ibv_mr mr = *verbs_env.mr_table.reg(1, buf, 8192, IBV_ACCESS_LOCAL_WRITE);
    std::uint8_t* bytes = verbs_env.mem.bytes(buf, 8192);
    for (std::uint32_t i = 0; i < 8192; ++i) bytes[i] = static_cast<std::uint8_t>(i * 13 + 5);
    int k = 0;
    for (std::uint32_t len : {0u, 1u, 6u, 64u, 2047u, 4096u}) {
      for (std::uint8_t sl : {std::uint8_t{0}, std::uint8_t{6}}) {
        INFO("payload " << len << " sl " << int(sl));
        ibv_send_wr wr;
        wr.wr_id = static_cast<std::uint64_t>(++k);
        wr.opcode = IBV_WR_SEND;
        if (len > 0) wr.sg_list = {{buf, len, mr.lkey}};
        ibv_ah_attr av;  // the address vector of the WR's address handle
        av.dlid = 0x0077;
        av.sl = sl;
        wr.ud.remote_qpn = 0x000203;
        wr.ud.remote_qkey = 0x22222222;
        REQUIRE(v.post_send(wr, 0, &av) == 0);
        REQUIRE(v.has_output());
        Packet pv;
        REQUIRE(v.build_next(pv));
        Packet pg;
        // The send engine passes the port's VL for the SL and the port's LID, as the env has them.
        g->build_datagram(pg, {0x0077, 0x000203, 0x22222222, len, sl}, gen_env.sl_to_vl(1, sl), gen_env.port_lid(1),
                          carried ? bytes : nullptr);
        require_same_wire_bytes(pv, pg);
      }
    }
    // Neither told the HCA anything: a generator QP never wakes, and the verbs one had nothing
    // left to send once each SEND was built.
    CHECK(gen_env.wakes == 0);
    CHECK_FALSE(v.has_output());
  }
}
