// InformInfo (SA attribute 0x0003, IBA Vol1 13.4.8.3): a port's subscription to the Notices (traps)
// a class manager forwards as Reports. 36 bytes, big-endian:
//   0-15 GID (the issuer to watch; 0: by LID range); 16-17 LIDRangeBegin (0xFFFF: every issuer);
//   18-19 LIDRangeEnd; 20-21 reserved; 22 IsGeneric; 23 Subscribe (1 subscribe, 0 unsubscribe);
//   24-25 Type (0xFFFF: any); 26-27 TrapNumber (generic) or DeviceID (0xFFFF: any);
//   28-30 QPN (where Reports go); 31 reserved (7-5) | RespTimeValue (4-0);
//   32 reserved; 33-35 ProducerType (generic) or VendorID (0xFFFFFF: any).
// Which Notices a subscription matches follows OpenSM's osm_inform.c: a non-zero GID must equal
// the Notice's IssuerGID, else a LID range other than 0xFFFF must hold the IssuerLID; IsGeneric
// must agree; Type, TrapNumber/DeviceID and ProducerType/VendorID match unless all ones.
#pragma once
#include <array>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/notice.h"
#include "sim/subnet_manager/sa/path_record.h"

namespace ibfsim {

// The attribute is IB_MAD_ATTR_INFORM_INFO (mad_header.h).
constexpr std::size_t kInformInfoBytes = 36;
constexpr std::uint16_t kInformAnyTrap = 0xFFFF;
constexpr std::uint32_t kInformAnyProducer = 0xFFFFFF;

struct InformInfo {
  Gid gid{};
  Lid lid_range_begin = 0xFFFF;
  Lid lid_range_end = 0;
  bool is_generic = true;
  bool subscribe = true;
  std::uint16_t type = 0xFFFF;
  std::uint16_t trap_number_or_device = kInformAnyTrap;
  std::uint32_t qpn = 1;            // 24 bits
  std::uint8_t resp_time_value = 0;  // 5 bits
  std::uint32_t producer_type_or_vendor = kInformAnyProducer;  // 24 bits

  bool operator==(const InformInfo& o) const;
};

std::array<std::uint8_t, kInformInfoBytes> encode_inform_info(const InformInfo& i);
InformInfo decode_inform_info(const std::uint8_t* in36);

// Whether subscription `i` wants `n`, issued by the port with GID `issuer_gid`.
bool inform_matches(const InformInfo& i, const Notice& n, const Gid& issuer_gid);

// Whether `i` is one the SA takes: Subscribe 0 or 1, a LID range begin <= end (unless 0xFFFF), a
// 5-bit RespTimeValue, and QPN 1 (ibfsim's Reports go to the subscriber's GSI, QP1).
bool inform_info_valid(const InformInfo& i);

}  // namespace ibfsim
