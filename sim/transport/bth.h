// BTH, the 12-byte base transport header (IBA Vol1 ch. 9):
//   byte 0 OpCode; byte 1: SE (7) | M (6) | PadCnt (5-4) | TVer (3-0); bytes 2-3 P_Key;
//   byte 4: FECN (7) | BECN (6) | reserved; bytes 5-7 DestQP; byte 8: AckReq (7) | reserved;
//   bytes 9-11 PSN. Big-endian; reserved bits are written 0.
#pragma once
#include <cstddef>
#include <cstdint>

#include "sim/core/big_endian.h"
#include "sim/core/ids.h"
#include "sim/transport/opcode.h"

namespace ibfsim {

constexpr std::size_t kBthBytes = 12;
constexpr std::size_t kBthFecnByte = 4;  // FECN/BECN: the only BTH byte a switch may change

// A decoded BTH. PadCnt, TVer, DestQP and PSN are masked to 2, 4, 24 and 24 bits on encode.
struct Bth {
  std::uint8_t opcode = 0;
  bool se = false;
  bool m = false;
  std::uint8_t pad_cnt = 0;
  std::uint8_t tver = 0;
  std::uint16_t p_key = 0xFFFF;
  bool fecn = false;
  bool becn = false;
  Qpn dest_qp = 0;
  bool ack_req = false;
  Psn psn = 0;
};

void encode_bth(const Bth& bth, std::uint8_t* out12);
Bth decode_bth(const std::uint8_t* in12);

// Single-field access for per-packet paths, without decoding the whole header.
inline std::uint8_t bth_opcode(const std::uint8_t* bth) { return bth[0]; }
inline Qpn bth_dest_qp(const std::uint8_t* bth) { return load_be24(bth + 5); }
inline Psn bth_psn(const std::uint8_t* bth) { return load_be24(bth + 9); }

// Congestion marking in place (a switch sets FECN; the ICRC masks this byte).
inline void set_bth_fecn(std::uint8_t* bth) { bth[kBthFecnByte] |= 0x80; }
inline bool bth_fecn(const std::uint8_t* bth) { return bth[kBthFecnByte] & 0x80; }

}  // namespace ibfsim
