#include "sim/subnet_manager/mad/node_info.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

SmpData encode_node_info(const NodeInfo& ni) {
  SmpData out{};
  out[0] = ni.base_version;
  out[1] = ni.class_version;
  out[2] = ni.node_type;
  out[3] = ni.num_ports;
  store_be64(&out[4], ni.system_image_guid);
  store_be64(&out[12], ni.node_guid);
  store_be64(&out[20], ni.port_guid);
  store_be16(&out[28], ni.partition_cap);
  store_be16(&out[30], ni.device_id);
  store_be32(&out[32], ni.revision);
  out[36] = ni.local_port_num;
  store_be24(&out[37], ni.vendor_id);
  return out;
}

NodeInfo decode_node_info(const std::uint8_t* in40) {
  NodeInfo ni;
  ni.base_version = in40[0];
  ni.class_version = in40[1];
  ni.node_type = in40[2];
  ni.num_ports = in40[3];
  ni.system_image_guid = load_be64(in40 + 4);
  ni.node_guid = load_be64(in40 + 12);
  ni.port_guid = load_be64(in40 + 20);
  ni.partition_cap = load_be16(in40 + 28);
  ni.device_id = load_be16(in40 + 30);
  ni.revision = load_be32(in40 + 32);
  ni.local_port_num = in40[36];
  ni.vendor_id = load_be24(in40 + 37);
  return ni;
}

}  // namespace ibfsim
