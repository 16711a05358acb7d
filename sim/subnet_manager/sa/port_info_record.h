// PortInfoRecord (SA attribute 0x0012, IBA Vol1 15.2.5.3): a port's PortInfo as the SA holds it.
// 68 bytes: 0-1 EndportLID (the base LID of the port, of port 0 for a switch); 2 PortNum;
// 3 Options (reserved here, 0); 4-67 PortInfo (mad/port_info.h). In a table each takes 72 bytes
// (AttributeOffset 9).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/port_info.h"
#include "sim/subnet_manager/sa/sa_mad.h"

namespace ibfsim {

constexpr std::size_t kPortInfoRecordBytes = 68;
constexpr std::uint16_t kPortInfoRecordOffset = 9;  // 8-byte words

constexpr std::uint64_t IB_PIR_COMPMASK_LID = 1ull << 0;
constexpr std::uint64_t IB_PIR_COMPMASK_PORTNUM = 1ull << 1;

struct PortInfoRecord {
  Lid endport_lid = 0;
  PortNum port_num = 0;
  PortInfo port_info;
};

void encode_port_info_record(const PortInfoRecord& r, std::uint8_t* out68);
SaData encode_port_info_record(const PortInfoRecord& r);
PortInfoRecord decode_port_info_record(const std::uint8_t* in68);

}  // namespace ibfsim
