// Notice (MAD attribute 0x0002, IBA Vol1 13.4.8.2): what a Trap carries. In an SMP's 64-byte data
// area, big-endian:
//   0: IsGeneric (7) | Type (6-0); 1-3: ProducerType (generic) or VendorID; 4-5: TrapNumber
//   (generic) or DeviceID; 6-7: IssuerLID; 8-9: NoticeToggle (15) | NoticeCount (14-0);
//   10-63: DataDetails (54 bytes; the Notice's IssuerGID, bytes 64-79, does not fit an SMP).
// Trap 128 (a switch's port changed link state) has DataDetails 0-1 = the switch's LID.
// Trap 256 (Bad M_Key, type security) has DataDetails, as the Linux SMAs (qib, hfi1) and OpenSM
// lay them out: 2-3 LIDADDR (the issuer's LID), 4-5 DRSLID, 6 Method, 8-9 AttributeID, 10-13
// AttributeModifier, 14-21 the M_Key the SMP carried, 23 DRNotice (7) | DRPathTruncated (6) |
// DRHopCount (5-0), 24-53 DRNoticeReturnPath: a directed-route SMP's ReturnPath[1..HopCount], the
// ports back toward whoever sent it (truncated at 30).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t kTrapLinkStateChange = 128;  // trap 128
constexpr std::uint16_t kTrapBadMKey = 256;          // trap 256
constexpr std::uint8_t kNoticeTypeUrgent = 1;
constexpr std::uint8_t kNoticeTypeSecurity = 2;
constexpr std::uint32_t kNoticeProducerCa = 1;       // ProducerType: 1 CA, 2 switch, 3 router, 4 class manager
constexpr std::uint32_t kNoticeProducerSwitch = 2;

struct Notice {
  bool is_generic = true;
  std::uint8_t type = kNoticeTypeUrgent;       // 7 bits
  std::uint32_t producer_type_or_vendor = 0;   // 24 bits
  std::uint16_t trap_number_or_device = 0;
  Lid issuer_lid = 0;
  bool toggle = false;
  std::uint16_t count = 0;                     // 15 bits
  std::array<std::uint8_t, 54> data_details{};
};

SmpData encode_notice(const Notice& n);
Notice decode_notice(const std::uint8_t* in64);

// A switch's trap 128 Notice: generic, urgent, producer switch, LIDAddr = `switch_lid`.
Notice make_trap_128(Lid switch_lid);
// Trap 256 of a node (`producer`: kNoticeProducerCa or kNoticeProducerSwitch) whose port with LID
// `issuer_lid` refused `bad` for its M_Key: generic, security.
Notice make_trap_256(Lid issuer_lid, std::uint32_t producer, const Smp& bad);

}  // namespace ibfsim
