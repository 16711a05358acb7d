// PathRecord (SA attribute 0x0035, IBA Vol1 15.2.5.16): how to reach one port from another. 64
// bytes, big-endian:
//   0-7 ServiceID; 8-23 DGID; 24-39 SGID; 40-41 DLID; 42-43 SLID;
//   44-47 RawTraffic (31) | reserved (30-28) | FlowLabel (27-8) | HopLimit (7-0); 48 TClass;
//   49 Reversible (7) | NumbPath (6-0); 50-51 P_Key; 52-53 QoSClass (15-4) | SL (3-0);
//   54 MTUSelector (7-6) | MTU (5-0); 55 RateSelector | Rate; 56 PacketLifeTimeSelector |
//   PacketLifeTime; 57 Preference; 58-63 reserved.
// MTU is the PortInfo MTU code (1: 256 ... 5: 4096); Rate the SA rate code (2: 2.5 Gb/s, 3: 10,
// 4: 30, 5: 5, 6: 20, 7: 40, 8: 60, 9: 80, 10: 120, 11: 14, 12: 56, 13: 112, 14: 168, 15: 25,
// 16: 100, 17: 200, 18: 300, 19: 28, 20: 50, 21: 400, 22: 600); PacketLifeTime the exponent n of
// 4.096 us x 2^n.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/sa/sa_mad.h"

namespace ibfsim {

constexpr std::size_t kPathRecordBytes = 64;

using Gid = std::array<std::uint8_t, 16>;
Gid gid_of(std::uint64_t prefix, Guid guid);
Guid gid_guid(const Gid& g);  // the interface ID (bytes 8-15)
constexpr std::uint64_t kDefaultGidPrefix = 0xFE80000000000000ull;

// ComponentMask bits (OpenSM's IB_PR_COMPMASK_*).
constexpr std::uint64_t IB_PR_COMPMASK_SERVICEID = 0x3;  // MSB and LSB halves, bits 0-1
constexpr std::uint64_t IB_PR_COMPMASK_DGID = 1ull << 2;
constexpr std::uint64_t IB_PR_COMPMASK_SGID = 1ull << 3;
constexpr std::uint64_t IB_PR_COMPMASK_DLID = 1ull << 4;
constexpr std::uint64_t IB_PR_COMPMASK_SLID = 1ull << 5;
constexpr std::uint64_t IB_PR_COMPMASK_RAWTRAFFIC = 1ull << 6;
constexpr std::uint64_t IB_PR_COMPMASK_FLOWLABEL = 1ull << 8;
constexpr std::uint64_t IB_PR_COMPMASK_HOPLIMIT = 1ull << 9;
constexpr std::uint64_t IB_PR_COMPMASK_TCLASS = 1ull << 10;
constexpr std::uint64_t IB_PR_COMPMASK_REVERSIBLE = 1ull << 11;
constexpr std::uint64_t IB_PR_COMPMASK_NUMBPATH = 1ull << 12;
constexpr std::uint64_t IB_PR_COMPMASK_PKEY = 1ull << 13;
constexpr std::uint64_t IB_PR_COMPMASK_QOS_CLASS = 1ull << 14;
constexpr std::uint64_t IB_PR_COMPMASK_SL = 1ull << 15;
constexpr std::uint64_t IB_PR_COMPMASK_MTUSELEC = 1ull << 16;
constexpr std::uint64_t IB_PR_COMPMASK_MTU = 1ull << 17;
constexpr std::uint64_t IB_PR_COMPMASK_RATESELEC = 1ull << 18;
constexpr std::uint64_t IB_PR_COMPMASK_RATE = 1ull << 19;
constexpr std::uint64_t IB_PR_COMPMASK_PKTLIFETIMESELEC = 1ull << 20;
constexpr std::uint64_t IB_PR_COMPMASK_PKTLIFETIME = 1ull << 21;
constexpr std::uint64_t IB_PR_COMPMASK_PREFERENCE = 1ull << 22;

// Selectors of MTU, rate and packet lifetime: the value asked is a bound or exact.
constexpr std::uint8_t IB_PATH_SELECTOR_GREATER_THAN = 0;
constexpr std::uint8_t IB_PATH_SELECTOR_LESS_THAN = 1;
constexpr std::uint8_t IB_PATH_SELECTOR_EXACTLY = 2;
constexpr std::uint8_t IB_PATH_SELECTOR_LARGEST = 3;

struct PathRecord {
  std::uint64_t service_id = 0;
  Gid dgid{}, sgid{};
  Lid dlid = 0, slid = 0;
  bool raw_traffic = false;
  std::uint32_t flow_label = 0;  // 20 bits
  std::uint8_t hop_limit = 0;
  std::uint8_t tclass = 0;
  bool reversible = false;
  std::uint8_t num_path = 0;  // 7 bits
  std::uint16_t p_key = 0;
  std::uint16_t qos_class = 0;  // 12 bits
  std::uint8_t sl = 0;          // 4 bits
  std::uint8_t mtu_selector = 0, mtu = 0;
  std::uint8_t rate_selector = 0, rate = 0;
  std::uint8_t packet_life_time_selector = 0, packet_life_time = 0;
  std::uint8_t preference = 0;
};

// Encodes at the start of 200 bytes of SA data (the rest zeros); out-of-range fields are masked.
void encode_path_record(const PathRecord& r, std::uint8_t* out64);
SaData encode_path_record(const PathRecord& r);
PathRecord decode_path_record(const std::uint8_t* in64);

// The SA rate code of a link: `lanes` lanes of `gbps_per_lane` Gb/s of data (after encoding), as
// PortInfo's active width and speed give it; 0 when the pair has no code.
std::uint8_t sa_rate_code(unsigned lanes, double gbps_per_lane);
// The data rate a code stands for, in Gb/s (0 for an unknown code), to compare codes by speed.
double sa_rate_gbps(std::uint8_t code);

}  // namespace ibfsim
