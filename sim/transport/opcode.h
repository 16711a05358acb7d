// BTH OpCode values (IBA Vol1 ch. 9). OpCode[7:5] is the transport service, OpCode[4:0] the
// operation; a full code is service base + operation (RC 0x00+op, UC 0x20+op, UD 0x60+op).
#pragma once
#include <array>
#include <cstdint>

namespace ibfsim {

// Transport service bases (OpCode[7:5]).
constexpr std::uint8_t kOpcodeRcBase = 0x00;
constexpr std::uint8_t kOpcodeUcBase = 0x20;
constexpr std::uint8_t kOpcodeRdBase = 0x40;
constexpr std::uint8_t kOpcodeUdBase = 0x60;
constexpr std::uint8_t kOpcodeCnpBase = 0x80;
constexpr std::uint8_t kOpcodeXrcBase = 0xA0;

constexpr std::uint8_t opcode_service(std::uint8_t opcode) { return opcode & 0xE0; }
constexpr std::uint8_t opcode_operation(std::uint8_t opcode) { return opcode & 0x1F; }

// Operations (OpCode[4:0]); the comment lists the headers between BTH and payload.
namespace op {
constexpr std::uint8_t kSendFirst = 0x00;
constexpr std::uint8_t kSendMiddle = 0x01;
constexpr std::uint8_t kSendLast = 0x02;
constexpr std::uint8_t kSendLastImm = 0x03;     // ImmDt
constexpr std::uint8_t kSendOnly = 0x04;        // (UD: DETH)
constexpr std::uint8_t kSendOnlyImm = 0x05;     // (UD: DETH,) ImmDt
constexpr std::uint8_t kRdmaWriteFirst = 0x06;  // RETH
constexpr std::uint8_t kRdmaWriteMiddle = 0x07;
constexpr std::uint8_t kRdmaWriteLast = 0x08;
constexpr std::uint8_t kRdmaWriteLastImm = 0x09;   // ImmDt
constexpr std::uint8_t kRdmaWriteOnly = 0x0A;      // RETH
constexpr std::uint8_t kRdmaWriteOnlyImm = 0x0B;   // RETH, ImmDt
constexpr std::uint8_t kRdmaReadRequest = 0x0C;    // RETH, no payload
constexpr std::uint8_t kRdmaReadRespFirst = 0x0D;  // AETH
constexpr std::uint8_t kRdmaReadRespMiddle = 0x0E;
constexpr std::uint8_t kRdmaReadRespLast = 0x0F;    // AETH
constexpr std::uint8_t kRdmaReadRespOnly = 0x10;    // AETH
constexpr std::uint8_t kAcknowledge = 0x11;         // AETH, no payload
constexpr std::uint8_t kAtomicAcknowledge = 0x12;   // AETH, AtomicAckETH
constexpr std::uint8_t kCmpSwap = 0x13;             // AtomicETH
constexpr std::uint8_t kFetchAdd = 0x14;            // AtomicETH
constexpr std::uint8_t kSendLastInvalidate = 0x16;  // IETH
constexpr std::uint8_t kSendOnlyInvalidate = 0x17;  // IETH
constexpr std::uint8_t kFlush = 0x1C;               // FETH, RETH (IBA 1.5)
constexpr std::uint8_t kAtomicWrite = 0x1D;         // RETH, 8-byte payload (IBA 1.5)
}  // namespace op

// Every RC opcode, in code order; RC's base is 0, so full code == operation.
constexpr std::array<std::uint8_t, 25> kRcOpcodes = {
    op::kSendFirst,        op::kSendMiddle,         op::kSendLast,           op::kSendLastImm,
    op::kSendOnly,         op::kSendOnlyImm,        op::kRdmaWriteFirst,     op::kRdmaWriteMiddle,
    op::kRdmaWriteLast,    op::kRdmaWriteLastImm,   op::kRdmaWriteOnly,      op::kRdmaWriteOnlyImm,
    op::kRdmaReadRequest,  op::kRdmaReadRespFirst,  op::kRdmaReadRespMiddle, op::kRdmaReadRespLast,
    op::kRdmaReadRespOnly, op::kAcknowledge,        op::kAtomicAcknowledge,  op::kCmpSwap,
    op::kFetchAdd,         op::kSendLastInvalidate, op::kSendOnlyInvalidate, op::kFlush,
    op::kAtomicWrite};

constexpr bool is_rc_opcode(std::uint8_t opcode) {
  for (std::uint8_t c : kRcOpcodes)
    if (c == opcode) return true;
  return false;
}

// Full codes used by the UD transport and congestion control.
constexpr std::uint8_t kOpcodeUdSendOnly = kOpcodeUdBase + op::kSendOnly;        // 0x64
constexpr std::uint8_t kOpcodeUdSendOnlyImm = kOpcodeUdBase + op::kSendOnlyImm;  // 0x65
constexpr std::uint8_t kOpcodeCnp = kOpcodeCnpBase;                              // 0x80
// RoCE v2's CNP (IBA Annex A17; transport/roce/roce_cnp.h): BTH and 16 reserved bytes.
constexpr std::uint8_t kOpcodeRoceCnp = kOpcodeCnpBase + 1;                      // 0x81

}  // namespace ibfsim
