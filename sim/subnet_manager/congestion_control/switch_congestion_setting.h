// SwitchCongestionSetting (CC attribute 0x0014, IBA Vol1 Annex A10.4.3.6; AttributeModifier 0):
// how a switch detects congestion and marks FECN. 76 bytes of the management data area,
// big-endian:
//   0-3   Control_Map: which of the fields below a Set applies (bits below);
//   4-35  Victim_Mask: 256 bits, bit p = port p (bit 0 enhanced port 0, bit 255 reserved), the
//         256-bit number stored most significant byte first (port p in byte 31 - p/8, bit p%8).
//         A port with its bit set marks packets that meet congestion whether it is the root of
//         the congestion or its victim (out of credits); without it, only as the root;
//   36-67 Credit_Mask: the same layout; ports that apply credit starvation;
//   68    Threshold (7-4): 0 no marking, 1 loose .. 15 aggressive; reserved (3-0);
//   69    Packet_Size: packets smaller than this many 64-byte credits are never marked;
//   70-71 CS_Threshold (15-12): credit starvation aggressiveness, 0 none; reserved (11-0);
//   72-73 CS_ReturnDelay: a CCT-entry-format value (shift 15-14, multiplier 13-0);
//   74-75 Marking_Rate: the mean number of eligible packets between two marked ones.
// Layout and field meanings: OpenSM ib_types.h ib_sw_cong_setting_t and its option texts,
// libibmad's field table [V].
#pragma once
#include <bitset>
#include <cstdint>

#include "sim/subnet_manager/congestion_control/cc_mad.h"

namespace ibfsim {

// Control_Map bits (OpenSM's option text).
constexpr std::uint32_t kSwCcControlVictimMask = 0x01;
constexpr std::uint32_t kSwCcControlCreditMask = 0x02;
constexpr std::uint32_t kSwCcControlThreshold = 0x04;       // Threshold and Packet_Size
constexpr std::uint32_t kSwCcControlCreditStarvation = 0x08;  // CS_Threshold and CS_ReturnDelay
constexpr std::uint32_t kSwCcControlMarkingRate = 0x10;
constexpr std::uint32_t kSwCcControlAll = 0x1F;

// A decoded SwitchCongestionSetting; threshold and cs_threshold are 4 bits (masked on encode).
struct SwitchCongestionSetting {
  std::uint32_t control_map = 0;
  std::bitset<256> victim_mask;
  std::bitset<256> credit_mask;
  std::uint8_t threshold = 0;
  std::uint8_t packet_size = 0;
  std::uint8_t cs_threshold = 0;
  std::uint16_t cs_return_delay = 0;
  std::uint16_t marking_rate = 0;
};

// A 256-bit port mask as stored in CC attributes, and back.
void encode_port_mask(const std::bitset<256>& mask, std::uint8_t* out32);
std::bitset<256> decode_port_mask(const std::uint8_t* in32);

CcMgmtData encode_switch_congestion_setting(const SwitchCongestionSetting& s);
SwitchCongestionSetting decode_switch_congestion_setting(const std::uint8_t* data);

}  // namespace ibfsim
