// Building and parsing any IBA transport packet that ibfsim's QPs send (RC, UC, UD):
//   LRH | [GRH] | BTH | [DETH] [RETH] [AtomicETH] [AETH] [AtomicAckETH] [ImmDt] [IETH] | payload |
//   pad | ICRC | VCRC
// Which extended headers follow the BTH is fixed by the opcode (IBA Vol1 ch. 9); the extended
// headers always appear in the order above, which is the spec's order for every opcode.
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/packet.h"
#include "sim/network/grh.h"
#include "sim/link/lrh.h"
#include "sim/transport/aeth.h"
#include "sim/transport/atomic_eth.h"
#include "sim/transport/bth.h"
#include "sim/transport/deth.h"
#include "sim/transport/ieth.h"
#include "sim/transport/reth.h"

namespace ibfsim {

// The extended headers an opcode carries, as bits.
enum ExtHeader : std::uint8_t {
  kExtDeth = 1,
  kExtReth = 2,
  kExtAtomicEth = 4,
  kExtAeth = 8,
  kExtAtomicAckEth = 16,
  kExtImmdt = 32,
  kExtIeth = 64,
};

struct OpcodeLayout {
  std::uint8_t headers = 0;  // ExtHeader bits
  bool payload = false;      // may carry payload
};

// nullopt for opcodes ibfsim's RC, UC and UD transports do not implement (RD, XRC, FLUSH, ...).
std::optional<OpcodeLayout> opcode_layout(std::uint8_t opcode);

// Every header of one packet. On build, LRH.LNH and PktLen, GRH.PayLen and NxtHdr, and BTH.PadCnt
// are computed; the optional headers must match the opcode's layout (checked).
struct TransportHeaders {
  Lrh lrh;
  std::optional<Grh> grh;
  Bth bth;
  Deth deth;
  Reth reth;
  AtomicEth atomic_eth;
  Aeth aeth;
  AtomicAckEth atomic_ack_eth;
  std::uint32_t imm = 0;
  Ieth ieth;
};

// The BTH and extended headers alone (what follows the LRH/GRH on IB, the UDP header on RoCE v2):
// one code for both fabrics. `ext` is the opcode's OpcodeLayout::headers.
std::size_t base_transport_bytes(std::uint8_t ext);
// Writes h.bth (PadCnt = pad_cnt) and the extended headers `ext` names, in the spec's order, at
// `out`; returns the bytes written. h.lrh and h.grh are not used.
std::size_t encode_base_transport(const TransportHeaders& h, std::uint8_t ext, std::uint8_t pad_cnt,
                                  std::uint8_t* out);
// Reads the extended headers `ext` names from `in` (the first byte after the BTH) into h.
void decode_extended_headers(const std::uint8_t* in, std::uint8_t ext, TransportHeaders& h);

// Writes the packet into p (headers, lengths, payload copied when `payload` is not null, elided
// otherwise), then its ICRC and VCRC.
void build_transport_packet(Packet& p, const TransportHeaders& h, std::uint32_t payload_len,
                            const std::uint8_t* payload);

// Why a packet could not be parsed; receivers count each.
enum class ParseError : std::uint8_t { kNone, kNotIba, kBadLength, kUnsupportedOpcode, kBadGrh };

struct ParsedPacket {
  TransportHeaders h;
  std::uint8_t ext = 0;  // ExtHeader bits present
  // Payload bytes as the packet's own fields give them: 4 x PktLen - headers - PadCnt - ICRC.
  std::uint32_t payload_len = 0;
  ParseError error = ParseError::kNone;
  bool ok() const { return error == ParseError::kNone; }
};

// Decodes p's headers from its bytes (LNH 2 or 3; a GRH must say IPVer 6, NxtHdr 0x1B and
// PayLen = 4 x PktLen - 48, R25) and its payload length from PktLen and PadCnt: a PadCnt larger
// than the bytes after the headers, or any payload byte on an opcode that carries none, is
// kBadLength (R23). Checks neither CRC; PktLen must already agree with the packet's length.
ParsedPacket parse_transport_packet(const Packet& p);

}  // namespace ibfsim
