// Multicast delivery through SA joins, all in band: the SM runs on h1 of a star of five HCAs on
// sw1; h2, h3 and h4 join one group with MCMemberRecord Sets (GMPs to the SA), the SM programs
// sw1's MFT with SMPs, and each member attaches a UD QP to the MLID its answer names (what
// ibv_attach_mcast does after rdma_join_multicast). Packets to the MLID (DestQP 0xFFFFFF) then
// reach every member once, never a port that did not join, and never the sender's own port: a
// switch does not send a multicast packet back out of the port it came in on, and the HCA does
// not loop a packet it sends back to its own QPs (no local loopback is modelled).
#include <catch2/catch.hpp>

#include <map>
#include <memory>
#include <systemc>

#include "sim/subnet_manager/sa/mc_member_record.h"
#include "sim/subnet_manager/sa/sa_client.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

const char* kTopology =
    "defaults: {link: {speed: QDR, width: 4x}, switch: {latency: 100ns}}\n"
    "nodes: [{name: sw1, type: switch, ports: 8}, {name: h1, type: hca}, {name: h2, type: hca},"
    " {name: h3, type: hca}, {name: h4, type: hca}, {name: h5, type: hca}]\n"
    "cables: [{from: h1/1, to: sw1/1, length: 1m}, {from: h2/1, to: sw1/2, length: 1m},"
    " {from: h3/1, to: sw1/3, length: 1m}, {from: h4/1, to: sw1/4, length: 1m},"
    " {from: h5/1, to: sw1/5, length: 1m}]\n";

constexpr std::uint32_t kQKey = 0x0B1B;

// One member: its SA client sends the join; the answer's MLID is what its QP attaches to.
struct Member {
  Hca* hca = nullptr;
  std::unique_ptr<SaClient> client;
  Qpn qpn = 0;
  Lid mlid = 0;
  std::uint8_t status = 0xFF;
  SaMad request;
  void fire() {
    client->query(request, [this](const SaMad* a) {
      REQUIRE(a != nullptr);
      status = static_cast<std::uint8_t>(a->header.status);
      mlid = decode_mc_member_record(a->data.data()).mlid;
      hca->join_multicast(mlid, qpn);
    });
  }
};

// Deliveries per receiving node, by sending node.
struct Counter : DeliveryObserver {
  std::map<std::pair<std::uint32_t, std::uint32_t>, int> got;  // (receiver, sender) -> packets
  void on_delivered(Hca& hca, const Packet& p, Time) override { ++got[{hca.node_index(), p.src_node}]; }
  int count(std::uint32_t receiver, std::uint32_t sender) const {
    const auto it = got.find({receiver, sender});
    return it == got.end() ? 0 : it->second;
  }
};

struct Sender {
  Hca* hca = nullptr;
  Qpn qpn = 0;
  Lid mlid = 0;
  int count = 0;
  void fire() {
    for (int i = 0; i < count; ++i) hca->post_ud_send(qpn, mlid, 0xFFFFFF, kQKey, 512, true);
  }
};

}  // namespace

TEST_CASE("SA multicast: a group joined in band delivers each packet once to each member, to no one else",
          "[subnet_manager][sa][multicast]") {
  FabricOptions o;
  SubnetManagerSettings sm;
  sm.host = 1;
  sm.config.sa_latency = 1 * kUs;
  o.subnet_manager = sm;
  Fabric& f = build_fabric(kTopology, o);
  static Time done = 0;
  f.subnet_manager()->set_on_sweep_done([](const SweepRecord& r) {
    done = r.done;
    sc_core::sc_pause();
  });
  sc_core::sc_start(to_sc_time(100 * kMs));
  ScheduledModule::rethrow_failure();
  REQUIRE(f.subnet_manager()->configured());

  // The IPv4 broadcast group of P_Key 0xFFFF (the group IPoIB joins): ff12:401b:ffff::ffff:ffff.
  McMemberRecord m;
  m.mgid = gid_of(0xFF12401BFFFF0000ull, 0x00000000FFFFFFFFull);
  m.q_key = kQKey;
  m.p_key = 0xFFFF;
  m.join_state = IB_MC_REC_STATE_FULL_MEMBER;
  const std::uint64_t mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE |
                             IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY;
  static Member members[3];
  static Counter counter;
  const Time t = (done + 10 * kUs) / kUs * kUs;
  for (int i = 0; i < 3; ++i) {
    Member& mem = members[i];
    const std::size_t node = 2 + i;  // h2, h3, h4
    mem.hca = f.hca(node);
    mem.client = std::make_unique<SaClient>(*f.hca_sma(node), 1);
    mem.qpn = mem.hca->create_ud_qp(kQKey);
    m.port_gid = gid_of(kDefaultGidPrefix, f.hca_sma(node)->state().ports[1].guid);
    mem.request = make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, mask, encode_mc_member_record(m), 0);
    fire_at(*mem.hca, t + static_cast<Time>(i) * 5 * kUs, &mem);
  }
  for (std::size_t node = 1; node <= 5; ++node) f.hca(node)->set_delivery_observer(&counter);
  run_for(f, 50 * kUs);
  for (const Member& mem : members) {
    CHECK(mem.status == 0);
    CHECK(mem.mlid == 0xC000);
  }
  REQUIRE(f.switch_at(0)->mft().lookup(0xC000));
  CHECK(*f.switch_at(0)->mft().lookup(0xC000) == std::vector<PortNum>{2, 3, 4});
  CHECK(f.subnet_manager()->sa_stats().mft_sets == 3);  // one Set of MFT block 0 per join
  CHECK(f.subnet_manager()->sa_stats().mft_failed == 0);

  // h2, a member, sends 7 packets to the group; h5, which never joined, sends 5 (sending needs
  // no membership: the MFT forwards whatever arrives for the MLID).
  static Sender from_member, from_other;
  from_member = Sender{f.hca(2), members[0].qpn, 0xC000, 7};
  from_other = Sender{f.hca(5), f.hca(5)->create_ud_qp(kQKey), 0xC000, 5};
  counter.got.clear();
  const Time s = t + 60 * kUs;
  fire_at(*f.hca(2), s, &from_member);
  fire_at(*f.hca(5), s + 2 * kUs, &from_other);
  run_for(f, 60 * kUs);
  // Every member once per packet; the sender member gets none of its own; h1 and h5 none at all.
  CHECK(counter.count(3, 2) == 7);
  CHECK(counter.count(4, 2) == 7);
  CHECK(counter.count(2, 2) == 0);
  CHECK(counter.count(2, 5) == 5);
  CHECK(counter.count(3, 5) == 5);
  CHECK(counter.count(4, 5) == 5);
  int total = 0;
  for (const auto& [key, n] : counter.got) total += n;
  CHECK(total == 7 * 2 + 5 * 3);
  // Nothing reached a port that did not join (it would be dropped there for its DLID).
  for (std::size_t node = 1; node <= 5; ++node) CHECK(f.hca(node)->port_discards(1, DropReason::kWrongDlid) == 0);
  // sw1 sent h1 and h5 no data packet: their ports' data transmissions are the SMPs' only.
  CHECK(f.hca(5)->stats().received_packets == 0);
  CHECK(f.hca(1)->stats().received_packets == 0);
}
