// Subnet Administration codecs (class 0x03): the SA MAD header with RMPP, PathRecord,
// MCMemberRecord byte for byte; NodeRecord and PortInfoRecord placement; round trips and masking.
// tshark's reading of the same bytes is in sa_capture_tshark_test.cpp.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/subnet_manager/sa/mc_member_record.h"
#include "sim/subnet_manager/sa/node_record.h"
#include "sim/subnet_manager/sa/path_record.h"
#include "sim/subnet_manager/sa/port_info_record.h"
#include "sim/subnet_manager/sa/sa_mad.h"

using namespace ibfsim;

namespace {
std::vector<std::uint8_t> bytes(const std::uint8_t* p, std::size_t n) { return {p, p + n}; }

PathRecord sample_path() {
  PathRecord r;
  r.service_id = 0x0000000001060000;
  r.dgid = gid_of(kDefaultGidPrefix, 0x0002C90300000002);
  r.sgid = gid_of(kDefaultGidPrefix, 0x0002C90300000001);
  r.dlid = 0x0002;
  r.slid = 0x0001;
  r.raw_traffic = true;
  r.flow_label = 0xABCDE;
  r.hop_limit = 0x40;
  r.tclass = 0x12;
  r.reversible = true;
  r.num_path = 1;
  r.p_key = 0xFFFF;
  r.qos_class = 0x123;
  r.sl = 5;
  r.mtu_selector = IB_PATH_SELECTOR_EXACTLY;
  r.mtu = 5;
  r.rate_selector = IB_PATH_SELECTOR_EXACTLY;
  r.rate = 16;
  r.packet_life_time_selector = IB_PATH_SELECTOR_EXACTLY;
  r.packet_life_time = 18;
  r.preference = 0;
  return r;
}
}  // namespace

TEST_CASE("SA MAD: header, RMPP, SM_Key, AttributeOffset, ComponentMask at their bytes", "[subnet_manager][codec]") {
  SaMad m = make_sa_request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PATH_RECORD, 0x34, SaData{}, 0x0102030405060708);
  m.rmpp = {kRmppVersion, IB_RMPP_TYPE_DATA, 0x1F, IB_RMPP_FLAG_ACTIVE | IB_RMPP_FLAG_FIRST | IB_RMPP_FLAG_LAST, 0,
            1, 84};
  m.sm_key = 0x1122334455667788;
  m.attribute_offset = 8;
  m.data[0] = 0xAA;
  m.data[199] = 0xBB;
  const Mad mad = encode_sa_mad(m);
  CHECK(bytes(mad.data(), 56) ==
        std::vector<std::uint8_t>{0x01, 0x03, 0x02, 0x12, 0x00, 0x00, 0x00, 0x00,   // versions, class, GetTable
                                  0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x08,   // TID
                                  0x00, 0x35, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00,   // PathRecord, modifier
                                  0x01, 0x01, 0xFF, 0x00, 0x00, 0x00, 0x00, 0x01,   // RMPP v1 DATA, 31<<3|7; seg 1
                                  0x00, 0x00, 0x00, 0x54,                           // PayloadLength 84
                                  0x11, 0x22, 0x33, 0x44, 0x55, 0x66, 0x77, 0x88,   // SM_Key
                                  0x00, 0x08, 0x00, 0x00,                           // AttributeOffset, reserved
                                  0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x00, 0x34}); // ComponentMask
  CHECK(mad[56] == 0xAA);
  CHECK(mad[255] == 0xBB);
  const SaMad d = decode_sa_mad(mad);
  CHECK(d.header.mgmt_class == IB_MCLASS_SUBN_ADM);
  CHECK(d.header.class_version == kSaClassVersion);
  CHECK(d.header.transaction_id == 0x0102030405060708);
  CHECK(d.rmpp.version == 1);
  CHECK(d.rmpp.type == 1);
  CHECK(d.rmpp.resp_time == 0x1F);
  CHECK(d.rmpp.flags == 7);
  CHECK(d.rmpp.data1 == 1);
  CHECK(d.rmpp.data2 == 84);
  CHECK(d.sm_key == m.sm_key);
  CHECK(d.attribute_offset == 8);
  CHECK(d.component_mask == 0x34);
  CHECK(d.data == m.data);
  CHECK(encode_sa_mad(d) == mad);
}

TEST_CASE("SA responses: the method's R bit, TID and attribute kept, status set", "[subnet_manager][codec]") {
  const SaMad get = make_sa_request(IB_MAD_METHOD_GET, IB_MAD_ATTR_NODE_RECORD, 1, SaData{}, 7);
  CHECK(make_sa_response(get, 0).header.method == IB_MAD_METHOD_GET_RESP);
  const SaMad table = make_sa_request(IB_MAD_METHOD_GETTABLE, IB_MAD_ATTR_PATH_RECORD, 0x30, SaData{}, 8);
  const SaMad r = make_sa_response(table, IB_SA_MAD_STATUS_NO_RECORDS);
  CHECK(r.header.method == IB_MAD_METHOD_GETTABLE_RESP);
  CHECK(r.header.status == 0x0300);
  CHECK(r.header.transaction_id == 8);
  CHECK(r.header.attribute_id == IB_MAD_ATTR_PATH_RECORD);
  const SaMad set = make_sa_request(IB_MAD_METHOD_SET, IB_MAD_ATTR_MCMEMBER_RECORD, 0, SaData{}, 9);
  CHECK(make_sa_response(set, 0).header.method == IB_MAD_METHOD_GET_RESP);
  const SaMad del = make_sa_request(IB_MAD_METHOD_DELETE, IB_MAD_ATTR_MCMEMBER_RECORD, 0, SaData{}, 9);
  CHECK(make_sa_response(del, 0).header.method == 0x95);
}

TEST_CASE("PathRecord byte for byte", "[subnet_manager][codec]") {
  const SaData d = encode_path_record(sample_path());
  CHECK(bytes(d.data(), 64) ==
        std::vector<std::uint8_t>{
            0x00, 0x00, 0x00, 0x00, 0x01, 0x06, 0x00, 0x00,                                 // ServiceID
            0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x02,  // DGID
            0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x01,  // SGID
            0x00, 0x02, 0x00, 0x01,                                                        // DLID, SLID
            0x8A, 0xBC, 0xDE, 0x40,  // RawTraffic, FlowLabel 0xABCDE, HopLimit 0x40
            0x12, 0x81, 0xFF, 0xFF,  // TClass, Reversible | NumbPath 1, P_Key
            0x12, 0x35,              // QoSClass 0x123, SL 5
            0x85, 0x90, 0x92, 0x00,  // MTU 2:5, Rate 2:16, PacketLifeTime 2:18, Preference
            0, 0, 0, 0, 0, 0});
  for (std::size_t i = 64; i < d.size(); ++i) REQUIRE(d[i] == 0);
  const PathRecord r = decode_path_record(d.data());
  CHECK(encode_path_record(r) == d);
  CHECK(r.flow_label == 0xABCDE);
  CHECK(r.qos_class == 0x123);
  CHECK(r.sl == 5);
  CHECK(r.rate == 16);
  CHECK(gid_guid(r.dgid) == 0x0002C90300000002);
}

TEST_CASE("PathRecord masks fields wider than their bits", "[subnet_manager][codec]") {
  PathRecord r;
  r.flow_label = 0xFFFFFFFF;
  r.num_path = 0xFF;
  r.sl = 0x1F;
  r.mtu = 0xFF;
  r.mtu_selector = 0xFF;
  const SaData d = encode_path_record(r);
  CHECK(d[44] == 0x0F);  // RawTraffic off, reserved bits 0
  CHECK(d[49] == 0x7F);
  CHECK(d[53] == 0x0F);
  CHECK(d[54] == 0xFF);
}

TEST_CASE("SA rate codes of links", "[subnet_manager][codec]") {
  CHECK(sa_rate_code(4, 25) == 16);    // 4x EDR: 100 Gb/s
  CHECK(sa_rate_code(4, 10) == 7);     // 4x QDR: 40
  CHECK(sa_rate_code(4, 14) == 12);    // 4x FDR: 56
  CHECK(sa_rate_code(1, 2.5) == 2);
  CHECK(sa_rate_code(12, 2.5) == 4);   // 30
  CHECK(sa_rate_code(4, 50) == 17);    // 4x HDR: 200
  CHECK(sa_rate_code(4, 100) == 21);   // 4x NDR: 400
  CHECK(sa_rate_code(3, 1) == 0);
  CHECK(sa_rate_gbps(16) == 100);
  CHECK(sa_rate_gbps(0) == 0);
}

TEST_CASE("NodeRecord: LID, NodeInfo at byte 4, NodeDescription at 44", "[subnet_manager][codec]") {
  NodeRecord r;
  r.lid = 0x1234;
  r.node_info.node_type = IB_NODE_TYPE_CA;
  r.node_info.num_ports = 2;
  r.node_info.node_guid = 0x0002C90300000010;
  r.node_info.port_guid = 0x0002C90300000011;
  r.node_info.local_port_num = 1;
  r.node_info.vendor_id = 0x02C9;
  r.description.text = "h1 HCA-1";
  const SaData d = encode_node_record(r);
  CHECK(bytes(d.data(), 4) == std::vector<std::uint8_t>{0x12, 0x34, 0, 0});
  const SmpData ni = encode_node_info(r.node_info);
  CHECK(bytes(d.data() + 4, 40) == bytes(ni.data(), 40));
  CHECK(bytes(d.data() + 44, 8) == std::vector<std::uint8_t>{'h', '1', ' ', 'H', 'C', 'A', '-', '1'});
  CHECK(d[52] == 0);
  for (std::size_t i = kNodeRecordBytes; i < d.size(); ++i) REQUIRE(d[i] == 0);
  const NodeRecord back = decode_node_record(d.data());
  CHECK(back.lid == 0x1234);
  CHECK(back.node_info.node_guid == 0x0002C90300000010);
  CHECK(back.description.text == "h1 HCA-1");
  CHECK(encode_node_record(back) == d);
  CHECK(kNodeRecordOffset * 8 >= kNodeRecordBytes);
  CHECK(kNodeRecordOffset * 8 < kNodeRecordBytes + 8);
}

TEST_CASE("PortInfoRecord: EndportLID, PortNum, PortInfo at byte 4", "[subnet_manager][codec]") {
  PortInfoRecord r;
  r.endport_lid = 0x0007;
  r.port_num = 3;
  r.port_info.lid = 0x0007;
  r.port_info.local_port_num = 3;
  r.port_info.neighbor_mtu = IB_MTU_LEN_4096;
  r.port_info.port_state = IB_LINK_ACTIVE;
  const SaData d = encode_port_info_record(r);
  CHECK(bytes(d.data(), 4) == std::vector<std::uint8_t>{0x00, 0x07, 0x03, 0x00});
  const SmpData pi = encode_port_info(r.port_info);
  CHECK(bytes(d.data() + 4, 64) == bytes(pi.data(), 64));
  for (std::size_t i = kPortInfoRecordBytes; i < d.size(); ++i) REQUIRE(d[i] == 0);
  const PortInfoRecord back = decode_port_info_record(d.data());
  CHECK(back.endport_lid == 7);
  CHECK(back.port_num == 3);
  CHECK(back.port_info.neighbor_mtu == IB_MTU_LEN_4096);
  CHECK(encode_port_info_record(back) == d);
}

TEST_CASE("MCMemberRecord byte for byte", "[subnet_manager][codec]") {
  McMemberRecord r;
  r.mgid = gid_of(0xFF12401BFFFF0000, 0x00000000FFFFFFFF);
  r.port_gid = gid_of(kDefaultGidPrefix, 0x0002C90300000001);
  r.q_key = 0x80010000;
  r.mlid = 0xC001;
  r.mtu_selector = IB_PATH_SELECTOR_EXACTLY;
  r.mtu = 4;
  r.tclass = 0x21;
  r.p_key = 0xFFFF;
  r.rate_selector = IB_PATH_SELECTOR_EXACTLY;
  r.rate = 3;
  r.packet_life_time_selector = IB_PATH_SELECTOR_EXACTLY;
  r.packet_life_time = 18;
  r.sl = 9;
  r.flow_label = 0x12345;
  r.hop_limit = 0xFF;
  r.scope = 2;
  r.join_state = IB_MC_REC_STATE_FULL_MEMBER;
  r.proxy_join = true;
  const SaData d = encode_mc_member_record(r);
  CHECK(bytes(d.data(), 52) ==
        std::vector<std::uint8_t>{
            0xFF, 0x12, 0x40, 0x1B, 0xFF, 0xFF, 0x00, 0x00, 0, 0, 0, 0, 0xFF, 0xFF, 0xFF, 0xFF,  // MGID
            0xFE, 0x80, 0, 0, 0, 0, 0, 0, 0x00, 0x02, 0xC9, 0x03, 0x00, 0x00, 0x00, 0x01,        // PortGID
            0x80, 0x01, 0x00, 0x00, 0xC0, 0x01,  // Q_Key, MLID
            0x84, 0x21, 0xFF, 0xFF, 0x83, 0x92,  // MTU 2:4, TClass, P_Key, Rate 2:3, life 2:18
            0x91, 0x23, 0x45, 0xFF,              // SL 9, FlowLabel 0x12345, HopLimit
            0x21, 0x80, 0x00, 0x00});            // Scope 2, JoinState full; ProxyJoin
  const McMemberRecord back = decode_mc_member_record(d.data());
  CHECK(back.sl == 9);
  CHECK(back.flow_label == 0x12345);
  CHECK(back.scope == 2);
  CHECK(back.join_state == 1);
  CHECK(back.proxy_join);
  CHECK(encode_mc_member_record(back) == d);
}
