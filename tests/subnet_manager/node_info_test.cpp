// NodeInfo codec: a 36-port switch byte for byte, decoding, round trips, masking.
#include <catch2/catch.hpp>

#include "sim/subnet_manager/mad/node_info.h"
#include "tests/subnet_manager/smp_data.h"

using namespace ibfsim;
using ibfsim::test::filled;
using ibfsim::test::smp_data;

namespace {
NodeInfo switch36() {
  NodeInfo ni;
  ni.base_version = 1;
  ni.class_version = 1;
  ni.node_type = IB_NODE_TYPE_SWITCH;
  ni.num_ports = 36;
  ni.system_image_guid = 0x0002C90300ABCDEF;
  ni.node_guid = 0x0002C90300ABCDEF;
  ni.port_guid = 0x0002C90300ABCDEF;  // a switch's only port GUID is port 0's
  ni.partition_cap = 8;
  ni.device_id = 0xCB20;
  ni.revision = 0x000000A0;
  ni.local_port_num = 5;  // the SMP came in on port 5
  ni.vendor_id = 0x0002C9;
  return ni;
}
}  // namespace

TEST_CASE("NodeInfo of a 36-port switch, byte for byte", "[subnet_manager][codec]") {
  CHECK(IB_MAD_ATTR_NODE_INFO == 0x0011);
  CHECK(encode_node_info(switch36()) ==
        smp_data({0x01, 0x01, 0x02, 0x24,                            // versions, type, NumPorts 36
                  0x00, 0x02, 0xC9, 0x03, 0x00, 0xAB, 0xCD, 0xEF,    // SystemImageGUID
                  0x00, 0x02, 0xC9, 0x03, 0x00, 0xAB, 0xCD, 0xEF,    // NodeGUID
                  0x00, 0x02, 0xC9, 0x03, 0x00, 0xAB, 0xCD, 0xEF,    // PortGUID
                  0x00, 0x08, 0xCB, 0x20,                            // PartitionCap, DeviceID
                  0x00, 0x00, 0x00, 0xA0,                            // Revision
                  0x05, 0x00, 0x02, 0xC9}));                         // LocalPortNum, VendorID
}

TEST_CASE("NodeInfo decodes every field", "[subnet_manager][codec]") {
  const SmpData d = smp_data({0x01, 0x02, 0x01, 0x02, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12,
                              13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 0x00, 0x40,
                              0x10, 0x17, 0xDE, 0xAD, 0xBE, 0xEF, 0x02, 0x12, 0x34, 0x56});
  const NodeInfo ni = decode_node_info(d.data());
  CHECK(ni.base_version == 1);
  CHECK(ni.class_version == 2);
  CHECK(ni.node_type == IB_NODE_TYPE_CA);
  CHECK(ni.num_ports == 2);
  CHECK(ni.system_image_guid == 0x0102030405060708);
  CHECK(ni.node_guid == 0x090A0B0C0D0E0F10);
  CHECK(ni.port_guid == 0x1112131415161718);
  CHECK(ni.partition_cap == 64);
  CHECK(ni.device_id == 0x1017);
  CHECK(ni.revision == 0xDEADBEEF);
  CHECK(ni.local_port_num == 2);
  CHECK(ni.vendor_id == 0x123456);
  CHECK(encode_node_info(ni) == d);
}

TEST_CASE("NodeInfo round-trips, masks VendorID to 24 bits and leaves bytes 40-63 zero",
          "[subnet_manager][codec]") {
  CHECK(encode_node_info(decode_node_info(filled(0xFF).data())) ==
        [] { SmpData d{}; for (std::size_t i = 0; i < kNodeInfoBytes; ++i) d[i] = 0xFF; return d; }());
  NodeInfo ni = switch36();
  ni.vendor_id = 0xFF0002C9;
  const SmpData d = encode_node_info(ni);
  CHECK(d[36] == 0x05);
  CHECK(decode_node_info(d.data()).vendor_id == 0x0002C9);
  CHECK(decode_node_info(d.data()).local_port_num == 5);
}
