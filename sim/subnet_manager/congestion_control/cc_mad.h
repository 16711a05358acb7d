// The Congestion Control MAD (management class 0x21, IBA Vol1 Annex A10.4.1): 256 bytes,
//   0-23 the common MAD header (mad_header.h); 24-31 CC_Key; 32-63 CongestionLogData (32 bytes);
//   64-255 CongestionControlMgmtData (192 bytes), which holds the attribute.
// CC MADs are GMPs: UD SENDs to QP1 on a data VL (Q_Key 0x80010000), answered by the Congestion
// Control Agent of the node (congestion_control_agent.h). Attribute IDs below; the layouts are in
// the attribute codecs (congestion_info.h, switch_congestion_setting.h,
// switch_port_congestion_setting.h, ca_congestion_setting.h, congestion_control_table_mad.h).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/subnet_manager/mad/mad_header.h"

namespace ibfsim {

constexpr std::uint8_t kCcClassVersion = 2;  // what OpenSM sends and binds to
constexpr std::size_t kCcKeyOffset = 24;
constexpr std::size_t kCcLogDataOffset = 32;
constexpr std::size_t kCcLogDataBytes = 32;
constexpr std::size_t kCcMgmtDataOffset = 64;
constexpr std::size_t kCcMgmtDataBytes = 192;

// Attribute IDs of the class (OpenSM's IB_MAD_ATTR_CONG_*, IB_MAD_ATTR_CC_TBL, ...).
constexpr std::uint16_t IB_MAD_ATTR_CONG_INFO = 0x0011;
constexpr std::uint16_t IB_MAD_ATTR_CONG_KEY_INFO = 0x0012;
constexpr std::uint16_t IB_MAD_ATTR_CONG_LOG = 0x0013;
constexpr std::uint16_t IB_MAD_ATTR_SW_CONG_SETTING = 0x0014;
constexpr std::uint16_t IB_MAD_ATTR_SW_PORT_CONG_SETTING = 0x0015;
constexpr std::uint16_t IB_MAD_ATTR_CA_CONG_SETTING = 0x0016;
constexpr std::uint16_t IB_MAD_ATTR_CC_TBL = 0x0017;
constexpr std::uint16_t IB_MAD_ATTR_TIME_STAMP = 0x0018;

// The attribute area of a CC MAD.
using CcMgmtData = std::array<std::uint8_t, kCcMgmtDataBytes>;

// A decoded CC MAD. Log data is carried as bytes (only CongestionLog uses it).
struct CcMad {
  MadHeader header;  // mgmt_class 0x21 when built by make_cc_mad
  std::uint64_t cc_key = 0;
  std::array<std::uint8_t, kCcLogDataBytes> log_data{};
  CcMgmtData data{};
};

Mad encode_cc_mad(const CcMad& m);
CcMad decode_cc_mad(const Mad& mad);

// A request of the class: header with MgmtClass 0x21, ClassVersion 2, the method, attribute and
// modifier, and `data` as the attribute.
CcMad make_cc_mad(std::uint8_t method, std::uint16_t attribute_id, std::uint32_t attribute_modifier,
                  const CcMgmtData& data, std::uint64_t transaction_id = 0, std::uint64_t cc_key = 0);

}  // namespace ibfsim
