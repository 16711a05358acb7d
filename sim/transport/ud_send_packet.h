// Building and parsing a UD SEND Only packet (optionally with immediate), local route:
//   LRH (LNH 2) | BTH (0x64 / 0x65) | DETH | [ImmDt] | payload | pad | ICRC | VCRC.
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/link/lrh.h"
#include "sim/transport/bth.h"
#include "sim/transport/deth.h"

namespace ibfsim {

// What the sender chooses for one UD SEND; everything else (LNH, PktLen, PadCnt, opcode) follows.
struct UdSendFields {
  std::uint8_t vl = 0, sl = 0;
  Lid dlid = 0, slid = 0;
  bool se = false;
  std::uint16_t p_key = 0xFFFF;
  Qpn dest_qp = 0;
  Psn psn = 0;
  std::uint32_t q_key = 0;
  Qpn src_qp = 0;
  std::optional<std::uint32_t> imm;  // set: SEND Only with Immediate
};

// Writes the whole packet into p: headers, header_len, payload_len, pad_len, payload (copied
// when `payload` is given, elided when it is nullptr), has_icrc, ICRC and VCRC. Leaves the
// simulation bookkeeping fields alone.
void build_ud_send(Packet& p, const UdSendFields& f, std::uint32_t payload_len,
                   const std::uint8_t* payload);

// The decoded headers of a UD SEND Only packet.
struct UdSendView {
  Lrh lrh;
  Bth bth;
  Deth deth;
  std::optional<std::uint32_t> imm;
};

// Decodes p's headers; nullopt unless it is LNH 2 with opcode 0x64 or 0x65 and long enough.
// Checks neither CRC (see icrc_ok, vcrc_ok).
std::optional<UdSendView> parse_ud_send(const Packet& p);

}  // namespace ibfsim
