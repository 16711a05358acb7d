// The SA's answers as a pure function of a small subnet built by hand: two switches A and B
// (linked A/3-B/3 at 2048-byte MTU), h1 on A/1 and h2 on A/2 at 4x EDR and 4096 bytes, h3 on B/1
// at 4x QDR. LIDs h1 1, h2 2, h3 3, A 4, B 5.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/sa/multicast_tree.h"
#include "sim/subnet_manager/sa/node_record.h"
#include "sim/subnet_manager/sa/port_info_record.h"
#include "sim/subnet_manager/sa/subnet_administrator.h"

using namespace ibfsim;

namespace {

struct Fixture {
  SubnetGraph g;
  RoutingTables t;
  std::vector<NodeInfo> infos;
  std::vector<std::vector<PortInfo>> ports;

  Fixture() {
    auto sw = [&](Guid guid, Lid lid, const char* name) {
      SubnetNode n;
      n.kind = SubnetNodeKind::kSwitch;
      n.node_guid = guid;
      n.description = name;
      n.ports.resize(5);
      n.ports[0].guid = guid;
      n.ports[0].lids = {lid, lid};
      g.nodes.push_back(n);
    };
    auto ca = [&](Guid guid, Lid lid, const char* name) {
      SubnetNode n;
      n.node_guid = guid;
      n.description = name;
      n.ports.resize(2);
      n.ports[1].guid = guid + 1;
      n.ports[1].lids = {lid, lid};
      g.nodes.push_back(n);
    };
    sw(0xA0, 4, "A");
    sw(0xB0, 5, "B");
    ca(0x10, 1, "h1");
    ca(0x20, 2, "h2");
    ca(0x30, 3, "h3");
    auto link = [&](SubnetPortRef a, SubnetPortRef b) {
      g.port(a).peer = b;
      g.port(b).peer = a;
    };
    link({0, 1}, {2, 1});
    link({0, 2}, {3, 1});
    link({4, 1}, {1, 1});
    link({0, 3}, {1, 3});
    t = empty_routing_tables(g);
    t.lft[0] = {kNoRoute, 1, 2, 3, 0, 3};
    t.lft[1] = {kNoRoute, 3, 3, 1, 3, 0};
    t.lft_top = 5;
    for (const SubnetNode& n : g.nodes) {
      NodeInfo ni;
      ni.node_type = n.is_switch() ? IB_NODE_TYPE_SWITCH : IB_NODE_TYPE_CA;
      ni.num_ports = static_cast<std::uint8_t>(n.num_ports());
      ni.node_guid = n.node_guid;
      infos.push_back(ni);
      std::vector<PortInfo> pis(n.ports.size());
      for (PortNum p = 0; p < pis.size(); ++p) {
        pis[p].lid = g.port(g.lid_port({infos.size() - 1, p})).lids.first;
        pis[p].local_port_num = p;
        pis[p].neighbor_mtu = IB_MTU_LEN_4096;
        pis[p].link_width_active = IB_LINK_WIDTH_ACTIVE_4X;
        pis[p].link_speed_active = IB_LINK_SPEED_ACTIVE_10;
        pis[p].link_speed_ext_active = IB_LINK_SPEED_EXT_ACTIVE_25;
      }
      ports.push_back(pis);
    }
    ports[0][3].neighbor_mtu = ports[1][3].neighbor_mtu = IB_MTU_LEN_4096 - 1;  // 2048
    ports[1][1].link_speed_ext_active = ports[4][1].link_speed_ext_active = 0;   // QDR
  }

  SaSubnet view() const {
    return SaSubnet{g, t, [this](std::size_t n) { return &infos.at(n); },
                    [this](std::size_t n, PortNum p) { return p < ports.at(n).size() ? &ports[n][p] : nullptr; }};
  }
};

SaMad path_query(std::uint8_t method, std::uint64_t mask, const PathRecord& r) {
  return make_sa_request(method, IB_MAD_ATTR_PATH_RECORD, mask, encode_path_record(r), 0x77);
}

}  // namespace

TEST_CASE("SA PathRecord: LIDs, GIDs, SL, the smallest MTU and rate along the LFTs' path", "[subnet_manager][sa]") {
  Fixture f;
  SubnetAdministrator sa;
  PathRecord want;
  want.sgid = gid_of(kDefaultGidPrefix, 0x11);
  want.dgid = gid_of(kDefaultGidPrefix, 0x31);
  want.num_path = 1;
  const SaMad a = sa.answer(path_query(IB_MAD_METHOD_GETTABLE,
                                       IB_PR_COMPMASK_SGID | IB_PR_COMPMASK_DGID | IB_PR_COMPMASK_NUMBPATH, want),
                            f.view(), 1);
  CHECK(a.header.method == IB_MAD_METHOD_GETTABLE_RESP);
  CHECK(a.header.status == 0);
  CHECK(a.header.transaction_id == 0x77);
  CHECK(a.attribute_offset == 8);
  CHECK(a.rmpp.version == 1);
  CHECK(a.rmpp.flags == 7);
  CHECK(a.rmpp.data1 == 1);
  CHECK(a.rmpp.data2 == 20 + 64);
  const PathRecord r = decode_path_record(a.data.data());
  CHECK(r.slid == 1);
  CHECK(r.dlid == 3);
  CHECK(r.sgid == gid_of(kDefaultGidPrefix, 0x11));
  CHECK(r.dgid == gid_of(kDefaultGidPrefix, 0x31));
  CHECK(r.mtu == 4);   // the A-B link
  CHECK(r.rate == 7);  // 40 Gb/s: h3's QDR link
  CHECK(r.sl == 0);
  CHECK(r.p_key == 0xFFFF);
  CHECK(r.packet_life_time == 18);
  CHECK(r.reversible);
  CHECK(r.mtu_selector == IB_PATH_SELECTOR_EXACTLY);
  for (std::size_t i = 64; i < kSaDataBytes; ++i) REQUIRE(a.data[i] == 0);

  // h1 to h2 by DLID, the source being the requester (LID 1): EDR, 4096.
  PathRecord by_lid;
  by_lid.dlid = 2;
  const SaMad b = sa.answer(path_query(IB_MAD_METHOD_GET, IB_PR_COMPMASK_DLID, by_lid), f.view(), 1);
  CHECK(b.header.method == IB_MAD_METHOD_GET_RESP);
  CHECK(b.rmpp.version == 0);
  const PathRecord rb = decode_path_record(b.data.data());
  CHECK(rb.slid == 1);
  CHECK(rb.dlid == 2);
  CHECK(rb.mtu == 5);
  CHECK(rb.rate == 16);  // 100 Gb/s
}

TEST_CASE("SA PathRecord: missing destination, unknown ports, selectors", "[subnet_manager][sa]") {
  Fixture f;
  SubnetAdministrator sa;
  PathRecord want;
  CHECK(sa.answer(path_query(IB_MAD_METHOD_GET, 0, want), f.view(), 1).header.status == IB_SA_MAD_STATUS_INSUF_COMPS);
  want.dgid = gid_of(kDefaultGidPrefix, 0x99);
  const SaMad none = sa.answer(path_query(IB_MAD_METHOD_GETTABLE, IB_PR_COMPMASK_DGID, want), f.view(), 1);
  CHECK(none.header.status == 0);
  CHECK(none.rmpp.data2 == 20);  // a table of no records
  CHECK(sa.answer(path_query(IB_MAD_METHOD_GET, IB_PR_COMPMASK_DGID, want), f.view(), 1).header.status ==
        IB_SA_MAD_STATUS_NO_RECORDS);
  // MTU greater than 2048: h1-h2 (4096) has it, h1-h3 (2048) not.
  PathRecord big;
  big.mtu_selector = IB_PATH_SELECTOR_GREATER_THAN;
  big.mtu = 4;
  const std::uint64_t mask = IB_PR_COMPMASK_DLID | IB_PR_COMPMASK_MTU | IB_PR_COMPMASK_MTUSELEC;
  big.dlid = 2;
  CHECK(sa.answer(path_query(IB_MAD_METHOD_GET, mask, big), f.view(), 1).header.status == 0);
  big.dlid = 3;
  CHECK(sa.answer(path_query(IB_MAD_METHOD_GET, mask, big), f.view(), 1).header.status == IB_SA_MAD_STATUS_NO_RECORDS);
  // SL 1 asked, the path has 0.
  PathRecord sl;
  sl.dlid = 2;
  sl.sl = 1;
  CHECK(sa.answer(path_query(IB_MAD_METHOD_GET, IB_PR_COMPMASK_DLID | IB_PR_COMPMASK_SL, sl), f.view(), 1)
            .header.status == IB_SA_MAD_STATUS_NO_RECORDS);
  // A method the attribute does not have.
  CHECK(sa.answer(path_query(IB_MAD_METHOD_SET, IB_PR_COMPMASK_DLID, sl), f.view(), 1).header.status ==
        IB_MAD_STATUS_UNSUP_METHOD_ATTR);
}

TEST_CASE("SA NodeRecord and PortInfoRecord", "[subnet_manager][sa]") {
  Fixture f;
  SubnetAdministrator sa;
  NodeRecord nq;
  nq.lid = 3;
  const SaMad n = sa.answer(make_sa_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_RECORD, IB_NR_COMPMASK_LID,
                                            encode_node_record(nq), 1),
                            f.view(), 1);
  REQUIRE(n.header.status == 0);
  const NodeRecord nr = decode_node_record(n.data.data());
  CHECK(nr.lid == 3);
  CHECK(nr.node_info.node_guid == 0x30);
  CHECK(nr.node_info.port_guid == 0x31);
  CHECK(nr.node_info.local_port_num == 1);
  CHECK(nr.description.text == "h3");
  // Every node: 5 records of 112 bytes do not fit one MAD.
  CHECK(sa.answer(make_sa_request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD, 0, SaData{}, 2), f.view(), 1)
            .header.status == IB_SA_MAD_STATUS_TOO_MANY_RECORDS);
  // Switches only: A and B, but 2 x 112 > 200 still.
  NodeRecord sq;
  sq.node_info.node_type = IB_NODE_TYPE_SWITCH;
  sq.node_info.node_guid = 0xB0;
  const SaMad s = sa.answer(make_sa_request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_NODE_RECORD,
                                            IB_NR_COMPMASK_NODETYPE | IB_NR_COMPMASK_NODEGUID,
                                            encode_node_record(sq), 3),
                            f.view(), 1);
  CHECK(s.header.status == 0);
  CHECK(s.rmpp.data2 == 20 + 112);
  CHECK(decode_node_record(s.data.data()).lid == 5);

  PortInfoRecord pq;
  pq.endport_lid = 4;
  pq.port_num = 3;
  const SaMad p = sa.answer(make_sa_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_PORTINFO_RECORD,
                                            IB_PIR_COMPMASK_LID | IB_PIR_COMPMASK_PORTNUM,
                                            encode_port_info_record(pq), 4),
                            f.view(), 1);
  REQUIRE(p.header.status == 0);
  const PortInfoRecord pr = decode_port_info_record(p.data.data());
  CHECK(pr.endport_lid == 4);
  CHECK(pr.port_num == 3);
  CHECK(pr.port_info.neighbor_mtu == 4);
  CHECK(p.attribute_offset == 9);
  // Switch A by LID alone: ports 0..4, 5 records of 72 bytes: too many; h2's one port: one.
  pq.endport_lid = 2;
  const SaMad h2 = sa.answer(make_sa_request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PORTINFO_RECORD,
                                             IB_PIR_COMPMASK_LID, encode_port_info_record(pq), 5),
                             f.view(), 1);
  CHECK(h2.rmpp.data2 == 20 + 72);
  pq.endport_lid = 4;
  CHECK(sa.answer(make_sa_request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PORTINFO_RECORD, IB_PIR_COMPMASK_LID,
                                  encode_port_info_record(pq), 6),
                  f.view(), 1)
            .header.status == IB_SA_MAD_STATUS_TOO_MANY_RECORDS);
}

TEST_CASE("SA MCMemberRecord: create, join, leave and the MFT blocks they change", "[subnet_manager][sa]") {
  Fixture f;
  SubnetAdministrator sa;
  const std::uint64_t join_mask = IB_MCR_COMPMASK_MGID | IB_MCR_COMPMASK_PORT_GID | IB_MCR_COMPMASK_JOIN_STATE;
  McMemberRecord c;
  c.port_gid = gid_of(kDefaultGidPrefix, 0x11);
  c.q_key = 0x1234;
  c.p_key = 0xFFFF;
  c.join_state = IB_MC_REC_STATE_FULL_MEMBER;
  // Without Q_Key and P_Key no group can be created.
  CHECK(sa.answer(make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, join_mask,
                                  encode_mc_member_record(c), 1),
                  f.view(), 1)
            .header.status == IB_SA_MAD_STATUS_INSUF_COMPS);
  const SaMad created = sa.answer(
      make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD,
                      join_mask | IB_MCR_COMPMASK_QKEY | IB_MCR_COMPMASK_PKEY, encode_mc_member_record(c), 2),
      f.view(), 1);
  REQUIRE(created.header.status == 0);
  CHECK(created.header.method == IB_MAD_METHOD_GET_RESP);
  const McMemberRecord g = decode_mc_member_record(created.data.data());
  CHECK(g.mgid == gid_of(0xFF12A01BFFFF0000, 1));
  CHECK(g.mlid == 0xC000);
  CHECK(g.q_key == 0x1234);
  CHECK(g.mtu == 5);   // the smallest HCA port NeighborMTU
  CHECK(g.rate == 7);  // and rate (h3's QDR)
  CHECK(g.scope == 2);
  CHECK(g.join_state == IB_MC_REC_STATE_FULL_MEMBER);
  CHECK(g.port_gid == c.port_gid);
  auto u = sa.take_mft_updates();
  REQUIRE(u.size() == 1);
  CHECK(u[0].node == 0);
  CHECK(u[0].switch_lid == 4);
  CHECK(u[0].where.block == 0);
  CHECK(u[0].where.position == 0);
  CHECK(u[0].block.port_masks[0] == 0x0002);  // A: port 1 (h1)
  CHECK(u[0].block.port_masks[1] == 0);

  // h3 joins: A sends to h1 and B, B to h3 and A.
  McMemberRecord j;
  j.mgid = g.mgid;
  j.port_gid = gid_of(kDefaultGidPrefix, 0x31);
  j.join_state = IB_MC_REC_STATE_FULL_MEMBER;
  REQUIRE(sa.answer(make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, join_mask,
                                    encode_mc_member_record(j), 3),
                    f.view(), 3)
              .header.status == 0);
  u = sa.take_mft_updates();
  REQUIRE(u.size() == 2);
  CHECK(u[0].node == 0);
  CHECK(u[0].block.port_masks[0] == 0x000A);
  CHECK(u[1].node == 1);
  CHECK(u[1].switch_lid == 5);
  CHECK(u[1].block.port_masks[0] == 0x000A);
  // Joining again with the same state changes nothing.
  sa.answer(make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, join_mask, encode_mc_member_record(j), 4),
            f.view(), 3);
  CHECK(sa.take_mft_updates().empty());
  // A read of the group by MLID.
  McMemberRecord byl;
  byl.mlid = 0xC000;
  const SaMad read = sa.answer(make_sa_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_MCMEMBER_RECORD, IB_MCR_COMPMASK_MLID,
                                               encode_mc_member_record(byl), 5),
                               f.view(), 3);
  CHECK(read.header.status == 0);
  CHECK(decode_mc_member_record(read.data.data()).mgid == g.mgid);

  // h1 leaves: only B, toward h3; A cleared.
  McMemberRecord l = j;
  l.port_gid = c.port_gid;
  REQUIRE(sa.answer(make_sa_request(IB_MAD_METHOD_DELETE, IB_MAD_ATTR_MCMEMBER_RECORD, join_mask,
                                    encode_mc_member_record(l), 6),
                    f.view(), 1)
              .header.method == 0x95);
  u = sa.take_mft_updates();
  REQUIRE(u.size() == 2);
  CHECK(u[0].node == 0);
  CHECK(u[0].block.port_masks[0] == 0);
  CHECK(u[1].node == 1);
  CHECK(u[1].block.port_masks[0] == 0x0002);
  // Leaving twice is an invalid request; h3 leaving ends the group.
  CHECK(sa.answer(make_sa_request(IB_MAD_METHOD_DELETE, IB_MAD_ATTR_MCMEMBER_RECORD, join_mask,
                                  encode_mc_member_record(l), 7),
                  f.view(), 1)
            .header.status == IB_SA_MAD_STATUS_REQ_INVALID);
  sa.answer(make_sa_request(IB_MAD_METHOD_DELETE, IB_MAD_ATTR_MCMEMBER_RECORD, join_mask, encode_mc_member_record(j), 8),
            f.view(), 3);
  CHECK(sa.groups().empty());
  u = sa.take_mft_updates();
  REQUIRE(u.size() == 1);
  CHECK(u[0].node == 1);
  CHECK(u[0].block.port_masks[0] == 0);
}

TEST_CASE("Multicast tree: send-only members reach the tree but receive nothing", "[subnet_manager][sa]") {
  Fixture f;
  const auto t = multicast_tree(f.g, {{{2, 1}, false}, {{4, 1}, true}});
  REQUIRE(t.size() == 2);
  CHECK(t.at(0) == std::vector<PortNum>{3});     // A: only toward B
  CHECK(t.at(1) == std::vector<PortNum>{1, 3});  // B: h3 and A
}
