// SMInfo (SMP attribute 0x0020, IBA Vol1 14.2.5.13): an SM's identity and state, exchanged for
// SM arbitration and handover. 21 bytes, big-endian:
//   0-7 GUID; 8-15 SM_Key; 16-19 ActCount; 20: Priority (7-4) | SMState (3-0).
// AttributeModifier: 0 for Get; for Set the handover control (IB_SMINFO_ATTR_MOD_*).
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/subnet_manager/mad/smp.h"

namespace ibfsim {

constexpr std::uint16_t IB_MAD_ATTR_SM_INFO = 0x0020;
constexpr std::size_t kSmInfoBytes = 21;

constexpr std::uint8_t IB_SMINFO_STATE_NOTACTIVE = 0;
constexpr std::uint8_t IB_SMINFO_STATE_DISCOVERING = 1;
constexpr std::uint8_t IB_SMINFO_STATE_STANDBY = 2;
constexpr std::uint8_t IB_SMINFO_STATE_MASTER = 3;

// SubnSet(SMInfo) AttributeModifier values, as numbered in OpenSM's ib_types.h.
constexpr std::uint32_t IB_SMINFO_ATTR_MOD_HANDOVER = 1;
constexpr std::uint32_t IB_SMINFO_ATTR_MOD_ACKNOWLEDGE = 2;
constexpr std::uint32_t IB_SMINFO_ATTR_MOD_DISABLE = 3;
constexpr std::uint32_t IB_SMINFO_ATTR_MOD_STANDBY = 4;
constexpr std::uint32_t IB_SMINFO_ATTR_MOD_DISCOVER = 5;

// A decoded SMInfo. priority and sm_state are 4 bits each, masked on encode. Arbitration: the
// highest priority wins, a tie goes to the lowest GUID.
struct SmInfo {
  Guid guid = 0;
  std::uint64_t sm_key = 0;
  std::uint32_t act_count = 0;
  std::uint8_t priority = 0;
  std::uint8_t sm_state = IB_SMINFO_STATE_NOTACTIVE;
};

SmpData encode_sm_info(const SmInfo& si);
SmInfo decode_sm_info(const std::uint8_t* in21);

}  // namespace ibfsim
