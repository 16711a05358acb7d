// Real HCAs on an Ethernet leaf-spine built from its plan (RoceHcaFabric): RC QPs between hosts of
// different leaves connect by LID as on InfiniBand, their WRITEs cross a spine chosen by ECMP per
// connection (the UDP source port from the QPNs), and every byte arrives.
#include <catch2/catch.hpp>

#include <algorithm>
#include <array>
#include <vector>

#include "sim/fabric/roce_hca_fabric.h"
#include "sim/transport/roce/roce_frame.h"
#include "tests/support/verbs_harness.h"

using namespace ibfsim;
using namespace ibfsim::test;
using namespace ibfsim::verbs;

TEST_CASE("RoCE HCA fabric: RC WRITEs between the leaves of a leaf-spine spread over both spines, every byte "
          "delivered",
          "[ethernet][roce][hca]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceHcaFabricOptions o;
  o.hca.carry_payload = true;
  RoceHcaFabric f(ethernet_leaf_spine(2, 2, 2, 1), o, pool, ledger);
  Hca& a_hca = f.hca("h1_1");
  Hca& b_hca = f.hca("h2_1");
  CHECK(a_hca.lid() == 1);
  CHECK(f.addresses().ip_of(b_hca.lid()) == IpAddress::v4(10, 0, 2, 1));
  // Eight connections between the same two hosts: only their QPNs (and so UDP source ports) differ.
  constexpr unsigned kFlows = 8;
  std::vector<Endpoint> as, bs;
  for (unsigned i = 0; i < kFlows; ++i) {
    as.push_back(make_endpoint(a_hca, IBV_QPT_RC, 1 << 15, IBV_ACCESS_LOCAL_WRITE));
    bs.push_back(make_endpoint(b_hca, IBV_QPT_RC, 1 << 15, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE));
    connect(as[i], bs[i]);
    std::uint8_t* src = a_hca.memory().bytes(as[i].buf, 1 << 15);
    for (unsigned k = 0; k < (1u << 15); ++k) src[k] = static_cast<std::uint8_t>(k * 13 + i);
    REQUIRE(a_hca.post_send(*as[i].qp, write_wr(as[i], bs[i], 0, 1 << 15, i)) == 0);
  }
  CalendarProcess::run_for(100 * kUs);
  for (unsigned i = 0; i < kFlows; ++i) {
    const auto wc = as[i].poll_all();
    REQUIRE(wc.size() == 1);
    CHECK(wc[0].status == IBV_WC_SUCCESS);
    const std::uint8_t* got = b_hca.memory().bytes(bs[i].buf, 1 << 15);
    const std::uint8_t* sent = a_hca.memory().bytes(as[i].buf, 1 << 15);
    CHECK(std::equal(sent, sent + (1 << 15), got));
  }
  // Every frame between the two leaves crossed exactly one spine: 8 x 8 WRITE packets one way and
  // the ACKs the other.
  EthernetSwitch& s1 = *f.switch_at(f.plan().find("spine1"));
  EthernetSwitch& s2 = *f.switch_at(f.plan().find("spine2"));
  const std::uint64_t frames = a_hca.ethernet_port().stats().tx_frames + b_hca.ethernet_port().stats().tx_frames;
  CHECK(a_hca.ethernet_port().stats().tx_frames == kFlows * 8);
  CHECK(s1.stats().forwarded + s2.stats().forwarded == frames);
  CHECK(s1.stats().forwarded > 0);
  CHECK(s2.stats().forwarded > 0);
  CHECK(ledger.dropped_total() == 0);
  CHECK(ledger.delivered_count() == ledger.created_count());
  CHECK(a_hca.qp_stats().packets_retransmitted == 0);
}

// The receiver checks the source by IP: an HCA whose address book does not know the sender's IP
// discards its frames (kInvalidLid: no LID stands for that source), each counted on its port, and
// the sender's RC QP, never acknowledged, retries and fails with a retry-exceeded completion.
TEST_CASE("RoCE HCA fabric: frames from an IP the receiver does not know are discarded and counted and RC retries "
          "then fails",
          "[ethernet][roce][hca]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceHcaFabricOptions o;
  const EthernetFabricPlan plan = ethernet_leaf_spine(2, 1, 1, 1);
  const std::size_t receiver = plan.find("h2_1");
  o.configure_hca = [&](std::size_t node, HcaConfig& c) {
    if (node != receiver) return;
    auto book = std::make_shared<RoceAddressBook>();
    book->add(2, plan.nodes[receiver].ip);  // itself only
    c.roce_addresses = book;
  };
  RoceHcaFabric f(plan, o, pool, ledger);
  Hca& a_hca = f.hca("h1_1");
  Hca& b_hca = f.hca("h2_1");
  REQUIRE(b_hca.lid() == 2);
  Endpoint a = make_endpoint(a_hca, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(b_hca, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  RcParams prm;
  prm.timeout = 8;  // 4.096 us x 2^8 = 1.05 ms
  prm.retry_cnt = 2;
  connect(a, b, prm);
  REQUIRE(a_hca.post_send(*a.qp, write_wr(a, b, 0, 256, 1)) == 0);
  CalendarProcess::run_for(20 * kMs);
  const auto wc = a.poll_all();
  REQUIRE(wc.size() == 1);
  CHECK(wc[0].status == IBV_WC_RETRY_EXC_ERR);
  // The first try and two retries, each discarded at h2_1.
  CHECK(b_hca.port_discards(1, DropReason::kInvalidLid) == 3);
  CHECK(b_hca.ethernet_port().stats().rx_frames == 3);
  CHECK(b_hca.ethernet_port().stats().tx_frames == 0);
  CHECK(ledger.dropped_count(DropReason::kInvalidLid) == 3);
}

namespace {
// The frames one port starts, as parse_roce_frame reads them.
struct FrameLog final : FrameCaptureSink {
  void capture_frame(Time, const Packet& p, std::uint32_t) override {
    p.write_frame(bytes);
    frames.push_back(parse_roce_frame(bytes.data(), bytes.size()));
  }
  std::vector<std::uint8_t> bytes;
  std::vector<ParsedRoceFrame> frames;
};
}  // namespace

// RoCE v2 addressing by GID: QPs whose address vectors are global name their peer by its GID, the
// IPv4-mapped address ::ffff:10.0.2.1, and the GRH's traffic class and hop limit become the IP
// header's DSCP/ECN and TTL; a port with a PCP tags its frames (802.1Q, VLAN 0). The receiver's
// QP sees the source's GID as the SGID its path expects, so the connection works both ways.
TEST_CASE("RoCE HCA fabric: global address vectors name peers by IPv4-mapped GIDs and set DSCP and TTL",
          "[ethernet][roce][hca]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceHcaFabricOptions o;
  o.hca.carry_payload = true;
  const EthernetFabricPlan plan = ethernet_leaf_spine(2, 1, 1, 1);
  o.configure_hca = [&](std::size_t node, HcaConfig& c) {
    if (node == plan.find("h1_1")) c.roce_ports[0].pcp = 3;
  };
  RoceHcaFabric f(plan, o, pool, ledger);
  Hca& a_hca = f.hca("h1_1");
  Hca& b_hca = f.hca("h2_1");
  const std::array<std::uint8_t, 16> a_gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 1, 1};
  const std::array<std::uint8_t, 16> b_gid{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xFF, 0xFF, 10, 0, 2, 1};
  CHECK(a_hca.port_grh_source(1).sgid == a_gid);
  CHECK(roce_gid_ip(b_gid) == IpAddress::v4(10, 0, 2, 1));
  Endpoint a = make_endpoint(a_hca, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE);
  Endpoint b = make_endpoint(b_hca, IBV_QPT_RC, 4096, IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
  // Both paths global (as RoCE applications connect: the GID is the address, the LID unused).
  const auto bring_up = [](Endpoint& self, const Endpoint& peer, const std::array<std::uint8_t, 16>& peer_gid,
                           std::uint8_t tclass) {
    ibv_qp_attr at;
    at.qp_state = IBV_QPS_INIT;
    at.port_num = 1;
    at.qp_access_flags = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE;
    REQUIRE(self.hca->modify_qp(*self.qp, at, IBV_QP_STATE | IBV_QP_PKEY_INDEX | IBV_QP_PORT | IBV_QP_ACCESS_FLAGS) ==
            0);
    at.qp_state = IBV_QPS_RTR;
    at.path_mtu = IBV_MTU_4096;
    at.dest_qp_num = peer.qp->qpn();
    at.rq_psn = 0;
    at.ah_attr.dlid = 0;
    at.ah_attr.port_num = 1;
    at.ah_attr.is_global = true;
    at.ah_attr.grh.dgid = peer_gid;
    at.ah_attr.grh.hop_lmt = 17;
    at.ah_attr.grh.tclass = tclass;
    at.max_dest_rd_atomic = 4;
    at.min_rnr_timer = 1;
    REQUIRE(self.hca->modify_qp(*self.qp, at,
                                IBV_QP_STATE | IBV_QP_AV | IBV_QP_PATH_MTU | IBV_QP_DEST_QPN | IBV_QP_RQ_PSN |
                                    IBV_QP_MAX_DEST_RD_ATOMIC | IBV_QP_MIN_RNR_TIMER) == 0);
    at.qp_state = IBV_QPS_RTS;
    at.sq_psn = 0;
    at.timeout = 14;
    at.retry_cnt = 7;
    at.rnr_retry = 7;
    at.max_rd_atomic = 4;
    REQUIRE(self.hca->modify_qp(*self.qp, at,
                                IBV_QP_STATE | IBV_QP_SQ_PSN | IBV_QP_TIMEOUT | IBV_QP_RETRY_CNT | IBV_QP_RNR_RETRY |
                                    IBV_QP_MAX_QP_RD_ATOMIC) == 0);
  };
  bring_up(a, b, b_gid, traffic_class_byte(26, 0));
  bring_up(b, a, a_gid, 0);
  FrameLog from_a, from_b;
  a_hca.ethernet_port().set_capture(&from_a);
  b_hca.ethernet_port().set_capture(&from_b);
  std::uint8_t* src = a_hca.memory().bytes(a.buf, 1024);
  for (unsigned i = 0; i < 1024; ++i) src[i] = static_cast<std::uint8_t>(i ^ 0x5A);
  REQUIRE(a_hca.post_send(*a.qp, write_wr(a, b, 0, 1024, 1)) == 0);
  CalendarProcess::run_for(20 * kUs);
  const auto wc = a.poll_all();
  INFO("frames from a " << from_a.frames.size() << ", from b " << from_b.frames.size() << ", ledger dropped "
                        << ledger.dropped_total() << " source mismatch "
                        << b_hca.port_discards(1, DropReason::kSourceMismatch) << "/"
                        << a_hca.port_discards(1, DropReason::kSourceMismatch) << " no qp "
                        << b_hca.port_discards(1, DropReason::kNoQp));
  REQUIRE(wc.size() == 1);
  CHECK(wc[0].status == IBV_WC_SUCCESS);
  CHECK(std::equal(src, src + 1024, b_hca.memory().bytes(b.buf, 1024)));
  REQUIRE(from_a.frames.size() == 1);
  const ParsedRoceFrame& w = from_a.frames[0];
  REQUIRE(w.ok());
  REQUIRE(w.eth.vlan.has_value());
  CHECK(w.eth.vlan->pcp == 3);
  CHECK(w.eth.vlan->vid == 0);
  CHECK(w.ipv4.dst == std::array<std::uint8_t, 4>{10, 0, 2, 1});
  CHECK(w.ipv4.dscp == 26);
  CHECK(w.ipv4.ttl == 17);
  CHECK(w.udp.src_port == roce_udp_source_port(a.qp->qpn(), b.qp->qpn()));
  REQUIRE(from_b.frames.size() == 1);  // the ACK, untagged, DSCP 0, to h1_1's IP
  const ParsedRoceFrame& ack = from_b.frames[0];
  REQUIRE(ack.ok());
  CHECK(!ack.eth.vlan.has_value());
  CHECK(ack.ipv4.dst == std::array<std::uint8_t, 4>{10, 0, 1, 1});
  CHECK(ack.udp.src_port == w.udp.src_port);  // one flow label for both directions
  CHECK(ledger.dropped_total() == 0);
}
