// MCMemberRecord (SA attribute 0x0038, IBA Vol1 15.2.5.17): a port's membership of a multicast
// group. 52 bytes, big-endian:
//   0-15 MGID; 16-31 PortGID; 32-35 Q_Key; 36-37 MLID; 38 MTUSelector (7-6) | MTU (5-0);
//   39 TClass; 40-41 P_Key; 42 RateSelector | Rate; 43 PacketLifeTimeSelector | PacketLifeTime;
//   44-47 SL (31-28) | FlowLabel (27-8) | HopLimit (7-0); 48 Scope (7-4) | JoinState (3-0);
//   49 ProxyJoin (7) | reserved; 50-51 reserved.
// JoinState bits: 0 FullMember, 1 NonMember, 2 SendOnlyNonMember. A Set joins (creating the group
// when its MGID is new or zero), a Delete leaves. In a table each takes 56 bytes (AttributeOffset 7).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/sa/path_record.h"

namespace ibfsim {

constexpr std::size_t kMcMemberRecordBytes = 52;
constexpr std::uint16_t kMcMemberRecordOffset = 7;  // 8-byte words

constexpr std::uint64_t IB_MCR_COMPMASK_MGID = 1ull << 0;
constexpr std::uint64_t IB_MCR_COMPMASK_PORT_GID = 1ull << 1;
constexpr std::uint64_t IB_MCR_COMPMASK_QKEY = 1ull << 2;
constexpr std::uint64_t IB_MCR_COMPMASK_MLID = 1ull << 3;
constexpr std::uint64_t IB_MCR_COMPMASK_MTU_SEL = 1ull << 4;
constexpr std::uint64_t IB_MCR_COMPMASK_MTU = 1ull << 5;
constexpr std::uint64_t IB_MCR_COMPMASK_TCLASS = 1ull << 6;
constexpr std::uint64_t IB_MCR_COMPMASK_PKEY = 1ull << 7;
constexpr std::uint64_t IB_MCR_COMPMASK_RATE_SEL = 1ull << 8;
constexpr std::uint64_t IB_MCR_COMPMASK_RATE = 1ull << 9;
constexpr std::uint64_t IB_MCR_COMPMASK_LIFE_SEL = 1ull << 10;
constexpr std::uint64_t IB_MCR_COMPMASK_LIFE = 1ull << 11;
constexpr std::uint64_t IB_MCR_COMPMASK_SL = 1ull << 12;
constexpr std::uint64_t IB_MCR_COMPMASK_FLOW = 1ull << 13;
constexpr std::uint64_t IB_MCR_COMPMASK_HOP = 1ull << 14;
constexpr std::uint64_t IB_MCR_COMPMASK_SCOPE = 1ull << 15;
constexpr std::uint64_t IB_MCR_COMPMASK_JOIN_STATE = 1ull << 16;
constexpr std::uint64_t IB_MCR_COMPMASK_PROXY = 1ull << 17;

constexpr std::uint8_t IB_MC_REC_STATE_FULL_MEMBER = 0x01;
constexpr std::uint8_t IB_MC_REC_STATE_NON_MEMBER = 0x02;
constexpr std::uint8_t IB_MC_REC_STATE_SEND_ONLY_NON_MEMBER = 0x04;

struct McMemberRecord {
  Gid mgid{}, port_gid{};
  std::uint32_t q_key = 0;
  Lid mlid = 0;
  std::uint8_t mtu_selector = 0, mtu = 0;
  std::uint8_t tclass = 0;
  std::uint16_t p_key = 0;
  std::uint8_t rate_selector = 0, rate = 0;
  std::uint8_t packet_life_time_selector = 0, packet_life_time = 0;
  std::uint8_t sl = 0;           // 4 bits
  std::uint32_t flow_label = 0;  // 20 bits
  std::uint8_t hop_limit = 0;
  std::uint8_t scope = 0;       // 4 bits
  std::uint8_t join_state = 0;  // 4 bits
  bool proxy_join = false;
};

void encode_mc_member_record(const McMemberRecord& r, std::uint8_t* out52);
SaData encode_mc_member_record(const McMemberRecord& r);
McMemberRecord decode_mc_member_record(const std::uint8_t* in52);

}  // namespace ibfsim
