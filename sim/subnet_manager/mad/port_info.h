// PortInfo (SMP attribute 0x0015, IBA Vol1 14.2.5.6): one port's addressing, link and VL settings.
// 64 bytes, big-endian (bit positions as in OpenSM's ib_port_info_t accessors):
//   0-7 M_Key; 8-15 GidPrefix; 16-17 LID; 18-19 MasterSMLID; 20-23 CapabilityMask; 24-25 DiagCode;
//   26-27 M_KeyLeasePeriod; 28 LocalPortNum; 29 LinkWidthEnabled; 30 LinkWidthSupported;
//   31 LinkWidthActive; 32 LinkSpeedSupported (7-4) | PortState (3-0);
//   33 PortPhysicalState (7-4) | LinkDownDefaultState (3-0);
//   34 M_KeyProtectBits (7-6) | reserved (5-3) | LMC (2-0);
//   35 LinkSpeedActive (7-4) | LinkSpeedEnabled (3-0); 36 NeighborMTU (7-4) | MasterSMSL (3-0);
//   37 VLCap (7-4) | InitType (3-0); 38 VLHighLimit; 39 VLArbitrationHighCap;
//   40 VLArbitrationLowCap; 41 InitTypeReply (7-4) | MTUCap (3-0);
//   42 VLStallCount (7-5) | HOQLife (4-0);
//   43 OperationalVLs (7-4) | PartitionEnforcementInbound (3) | PartitionEnforcementOutbound (2) |
//      FilterRawInbound (1) | FilterRawOutbound (0);
//   44-45 M_KeyViolations; 46-47 P_KeyViolations; 48-49 Q_KeyViolations; 50 GUIDCap;
//   51 ClientReregister (7) | MulticastPKeyTrapSuppressionEnabled (6) | reserved (5) |
//      SubnetTimeOut (4-0);
//   52 reserved (7-5) | RespTimeValue (4-0); 53 LocalPhyErrors (7-4) | OverrunErrors (3-0);
//   54-55 MaxCreditHint; 56 reserved; 57-59 LinkRoundTripLatency; 60-61 CapabilityMask2;
//   62 LinkSpeedExtActive (7-4) | LinkSpeedExtSupported (3-0);
//   63 reserved (7-5) | LinkSpeedExtEnabled (4-0).
// AttributeModifier: the port number (ignored by a CA, which answers for the port it was asked on).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_PORT_INFO = 0x0015;
constexpr std::size_t kPortInfoBytes = 64;

// PortState. In a SubnSet, NoChange leaves the state as it is.
constexpr std::uint8_t IB_LINK_NO_CHANGE = 0;
constexpr std::uint8_t IB_LINK_DOWN = 1;
constexpr std::uint8_t IB_LINK_INIT = 2;
constexpr std::uint8_t IB_LINK_ARMED = 3;
constexpr std::uint8_t IB_LINK_ACTIVE = 4;

// PortPhysicalState.
constexpr std::uint8_t IB_PORT_PHYS_STATE_NO_CHANGE = 0;
constexpr std::uint8_t IB_PORT_PHYS_STATE_SLEEP = 1;
constexpr std::uint8_t IB_PORT_PHYS_STATE_POLLING = 2;
constexpr std::uint8_t IB_PORT_PHYS_STATE_DISABLED = 3;
constexpr std::uint8_t IB_PORT_PHYS_STATE_PORTCONFTRAIN = 4;
constexpr std::uint8_t IB_PORT_PHYS_STATE_LINKUP = 5;
constexpr std::uint8_t IB_PORT_PHYS_STATE_LINKERRRECOVER = 6;
constexpr std::uint8_t IB_PORT_PHYS_STATE_PHYTEST = 7;

// LinkWidth* are bit sets of these.
constexpr std::uint8_t IB_LINK_WIDTH_ACTIVE_1X = 0x01;
constexpr std::uint8_t IB_LINK_WIDTH_ACTIVE_4X = 0x02;
constexpr std::uint8_t IB_LINK_WIDTH_ACTIVE_8X = 0x04;
constexpr std::uint8_t IB_LINK_WIDTH_ACTIVE_12X = 0x08;
constexpr std::uint8_t IB_LINK_WIDTH_ACTIVE_2X = 0x10;

// LinkSpeed{Supported,Active,Enabled} (SDR, DDR, QDR). A nonzero LinkSpeedExtActive (FDR, EDR)
// supersedes LinkSpeedActive.
constexpr std::uint8_t IB_LINK_SPEED_ACTIVE_2_5 = 0x1;
constexpr std::uint8_t IB_LINK_SPEED_ACTIVE_5 = 0x2;
constexpr std::uint8_t IB_LINK_SPEED_ACTIVE_10 = 0x4;
constexpr std::uint8_t IB_LINK_SPEED_EXT_ACTIVE_NONE = 0x0;
constexpr std::uint8_t IB_LINK_SPEED_EXT_ACTIVE_14 = 0x1;  // FDR, 14.0625 Gb/s per lane
constexpr std::uint8_t IB_LINK_SPEED_EXT_ACTIVE_25 = 0x2;  // EDR, 25.78125 Gb/s per lane

// MTU codes of NeighborMTU and MTUCap.
constexpr std::uint8_t IB_MTU_LEN_256 = 1;
constexpr std::uint8_t IB_MTU_LEN_512 = 2;
constexpr std::uint8_t IB_MTU_LEN_1024 = 3;
constexpr std::uint8_t IB_MTU_LEN_2048 = 4;
constexpr std::uint8_t IB_MTU_LEN_4096 = 5;

// CapabilityMask bits (host order).
constexpr std::uint32_t IB_PORT_CAP_IS_SM = 0x00000002;
constexpr std::uint32_t IB_PORT_CAP_HAS_NOTICE = 0x00000004;
constexpr std::uint32_t IB_PORT_CAP_HAS_TRAP = 0x00000008;
constexpr std::uint32_t IB_PORT_CAP_HAS_SL_MAP = 0x00000040;
constexpr std::uint32_t IB_PORT_CAP_SM_DISAB = 0x00000400;
constexpr std::uint32_t IB_PORT_CAP_HAS_SYS_IMG_GUID = 0x00000800;
constexpr std::uint32_t IB_PORT_CAP_HAS_EXT_SPEEDS = 0x00004000;
constexpr std::uint32_t IB_PORT_CAP_HAS_CAP_MASK2 = 0x00008000;
constexpr std::uint32_t IB_PORT_CAP_HAS_COM_MGT = 0x00010000;
constexpr std::uint32_t IB_PORT_CAP_HAS_VEND_CLS = 0x00100000;
constexpr std::uint32_t IB_PORT_CAP_HAS_CLIENT_REREG = 0x02000000;

// A decoded PortInfo. Sub-byte fields are masked to their width on encode; reserved bits are 0.
struct PortInfo {
  std::uint64_t m_key = 0;
  std::uint64_t gid_prefix = 0;
  Lid lid = 0;
  Lid master_sm_lid = 0;
  std::uint32_t capability_mask = 0;
  std::uint16_t diag_code = 0;
  std::uint16_t m_key_lease_period = 0;
  PortNum local_port_num = 0;
  std::uint8_t link_width_enabled = 0;
  std::uint8_t link_width_supported = 0;
  std::uint8_t link_width_active = 0;
  std::uint8_t link_speed_supported = 0;      // 4 bits
  std::uint8_t port_state = IB_LINK_NO_CHANGE;  // 4 bits
  std::uint8_t port_physical_state = 0;       // 4 bits
  std::uint8_t link_down_default_state = 0;   // 4 bits
  std::uint8_t m_key_protect_bits = 0;        // 2 bits
  std::uint8_t lmc = 0;                       // 3 bits
  std::uint8_t link_speed_active = 0;         // 4 bits
  std::uint8_t link_speed_enabled = 0;        // 4 bits
  std::uint8_t neighbor_mtu = 0;              // 4 bits
  std::uint8_t master_sm_sl = 0;              // 4 bits
  std::uint8_t vl_cap = 0;                    // 4 bits
  std::uint8_t init_type = 0;                 // 4 bits
  std::uint8_t vl_high_limit = 0;
  std::uint8_t vl_arbitration_high_cap = 0;
  std::uint8_t vl_arbitration_low_cap = 0;
  std::uint8_t init_type_reply = 0;           // 4 bits
  std::uint8_t mtu_cap = 0;                   // 4 bits
  std::uint8_t vl_stall_count = 0;            // 3 bits
  std::uint8_t hoq_life = 0;                  // 5 bits
  std::uint8_t operational_vls = 0;           // 4 bits
  bool partition_enforcement_inbound = false;
  bool partition_enforcement_outbound = false;
  bool filter_raw_inbound = false;
  bool filter_raw_outbound = false;
  std::uint16_t m_key_violations = 0;
  std::uint16_t p_key_violations = 0;
  std::uint16_t q_key_violations = 0;
  std::uint8_t guid_cap = 0;
  bool client_reregister = false;
  bool multicast_pkey_trap_suppression_enabled = false;
  std::uint8_t subnet_timeout = 0;            // 5 bits
  std::uint8_t resp_time_value = 0;           // 5 bits
  std::uint8_t local_phy_errors = 0;          // 4 bits
  std::uint8_t overrun_errors = 0;            // 4 bits
  std::uint16_t max_credit_hint = 0;
  std::uint32_t link_round_trip_latency = 0;  // 24 bits
  std::uint16_t capability_mask2 = 0;
  std::uint8_t link_speed_ext_active = 0;     // 4 bits
  std::uint8_t link_speed_ext_supported = 0;  // 4 bits
  std::uint8_t link_speed_ext_enabled = 0;    // 5 bits
};

SmpData encode_port_info(const PortInfo& pi);
PortInfo decode_port_info(const std::uint8_t* in64);

}  // namespace ibfsim
