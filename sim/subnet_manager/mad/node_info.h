// NodeInfo (SMP attribute 0x0011, IBA Vol1 14.2.5.3): what a node is. 40 bytes, big-endian:
//   0 BaseVersion; 1 ClassVersion; 2 NodeType; 3 NumPorts; 4-11 SystemImageGUID; 12-19 NodeGUID;
//   20-27 PortGUID; 28-29 PartitionCap; 30-31 DeviceID; 32-35 Revision; 36 LocalPortNum;
//   37-39 VendorID. AttributeModifier 0.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_NODE_INFO = 0x0011;
constexpr std::size_t kNodeInfoBytes = 40;

constexpr std::uint8_t IB_NODE_TYPE_CA = 0x01;
constexpr std::uint8_t IB_NODE_TYPE_SWITCH = 0x02;
constexpr std::uint8_t IB_NODE_TYPE_ROUTER = 0x03;

// A decoded NodeInfo. `local_port_num` is the port the SMP came in by (0 for a switch's
// management port); `vendor_id` is the 24-bit IEEE OUI and is masked to 24 bits on encode.
struct NodeInfo {
  std::uint8_t base_version = 1;
  std::uint8_t class_version = 1;
  std::uint8_t node_type = IB_NODE_TYPE_CA;
  std::uint8_t num_ports = 1;
  Guid system_image_guid = 0;
  Guid node_guid = 0;
  Guid port_guid = 0;
  std::uint16_t partition_cap = 0;
  std::uint16_t device_id = 0;
  std::uint32_t revision = 0;
  PortNum local_port_num = 0;
  std::uint32_t vendor_id = 0;
};

// The attribute as SMP data: 40 bytes of NodeInfo, then zeros.
SmpData encode_node_info(const NodeInfo& ni);
NodeInfo decode_node_info(const std::uint8_t* in40);

}  // namespace ibfsim
