// NodeRecord (SA attribute 0x0011, IBA Vol1 15.2.5.2): a node as the SA knows it. 108 bytes:
//   0-1 LID (the base LID of the port the NodeInfo came by); 2-3 reserved; 4-43 NodeInfo
//   (mad/node_info.h); 44-107 NodeDescription (mad/node_description.h). In a table of several,
//   each takes 112 bytes (AttributeOffset 14).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/node_description.h"
#include "sim/subnet_manager/mad/node_info.h"
#include "sim/subnet_manager/sa/sa_mad.h"

namespace ibfsim {

constexpr std::size_t kNodeRecordBytes = 108;
constexpr std::uint16_t kNodeRecordOffset = 14;  // 8-byte words

// ComponentMask bits (OpenSM's IB_NR_COMPMASK_*): LID, then NodeInfo's fields in order.
constexpr std::uint64_t IB_NR_COMPMASK_LID = 1ull << 0;
constexpr std::uint64_t IB_NR_COMPMASK_NODETYPE = 1ull << 4;
constexpr std::uint64_t IB_NR_COMPMASK_NODEGUID = 1ull << 7;
constexpr std::uint64_t IB_NR_COMPMASK_PORTGUID = 1ull << 8;

struct NodeRecord {
  Lid lid = 0;
  NodeInfo node_info;
  NodeDescription description;
};

void encode_node_record(const NodeRecord& r, std::uint8_t* out108);
SaData encode_node_record(const NodeRecord& r);
NodeRecord decode_node_record(const std::uint8_t* in108);

}  // namespace ibfsim
