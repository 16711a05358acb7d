// CongestionControlTable (CC attribute 0x0017, IBA Vol1 Annex A10.4.3.9): one block of 64 entries
// of a CA port's table; AttributeModifier = block number (the block holds entries 64 x block ..
// 64 x block + 63). 132 bytes of the management data area, big-endian:
//   0-1 CCTI_Limit (the largest valid CCTI of the whole table); 2-3 reserved;
//   4 + 2 i: entry i: CCT_Shift (15-14) | CCT_Multiplier (13-0).
// Layout: OpenSM ib_cc_tbl_t / ib_cc_tbl_entry_t, libibmad [V]. The entries' meaning (the
// inter-packet delay) is in sim/transport/congestion_control_table.h.
#pragma once
#include <array>
#include <cstdint>

#include "sim/subnet_manager/congestion_control/cc_mad.h"
#include "sim/transport/congestion_control_table.h"

namespace ibfsim {

constexpr unsigned kCctBlockEntries = 64;

struct CongestionControlTableBlock {
  std::uint16_t ccti_limit = 0;
  std::array<CctEntry, kCctBlockEntries> entries{};
};

CcMgmtData encode_congestion_control_table_block(const CongestionControlTableBlock& b);
CongestionControlTableBlock decode_congestion_control_table_block(const std::uint8_t* data);

}  // namespace ibfsim
