// The common MAD header (IBA Vol1 13.4.2): the first 24 bytes of every management datagram.
//   byte 0 BaseVersion; 1 MgmtClass; 2 ClassVersion; 3 R (7) | Method (6-0); 4-5 Status;
//   6-7 ClassSpecific; 8-15 TransactionID; 16-17 AttributeID; 18-19 reserved;
//   20-23 AttributeModifier. Big-endian. Every MAD on QP0/QP1 is 256 bytes.
// Constant names follow OpenSM's include/iba/ib_types.h, in host byte order.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

namespace ibfsim {

constexpr std::size_t kMadBytes = 256;
constexpr std::size_t kMadHeaderBytes = 24;
constexpr std::uint8_t kMadBaseVersion = 1;

// A whole MAD as carried in the payload of a UD SEND to QP0 or QP1.
using Mad = std::array<std::uint8_t, kMadBytes>;

// Management classes (MgmtClass).
constexpr std::uint8_t IB_MCLASS_SUBN_LID = 0x01;  // SMP, LID-routed
constexpr std::uint8_t IB_MCLASS_SUBN_DIR = 0x81;  // SMP, directed route
constexpr std::uint8_t IB_MCLASS_SUBN_ADM = 0x03;
constexpr std::uint8_t IB_MCLASS_PERF = 0x04;
constexpr std::uint8_t IB_MCLASS_BM = 0x05;
constexpr std::uint8_t IB_MCLASS_DEV_MGMT = 0x06;
constexpr std::uint8_t IB_MCLASS_COMM_MGMT = 0x07;
constexpr std::uint8_t IB_MCLASS_SNMP = 0x08;
constexpr std::uint8_t IB_MCLASS_DEV_ADM = 0x10;
constexpr std::uint8_t IB_MCLASS_BIS = 0x12;
constexpr std::uint8_t IB_MCLASS_CC = 0x21;

// Methods. Bit 7 (R) marks a response.
constexpr std::uint8_t IB_MAD_METHOD_RESP_MASK = 0x80;
constexpr std::uint8_t IB_MAD_METHOD_GET = 0x01;
constexpr std::uint8_t IB_MAD_METHOD_SET = 0x02;
constexpr std::uint8_t IB_MAD_METHOD_SEND = 0x03;
constexpr std::uint8_t IB_MAD_METHOD_TRAP = 0x05;
constexpr std::uint8_t IB_MAD_METHOD_REPORT = 0x06;
constexpr std::uint8_t IB_MAD_METHOD_TRAP_REPRESS = 0x07;
constexpr std::uint8_t IB_MAD_METHOD_GETTABLE = 0x12;
constexpr std::uint8_t IB_MAD_METHOD_GETTRACETABLE = 0x13;
constexpr std::uint8_t IB_MAD_METHOD_GETMULTI = 0x14;
constexpr std::uint8_t IB_MAD_METHOD_DELETE = 0x15;
constexpr std::uint8_t IB_MAD_METHOD_GET_RESP = 0x81;
constexpr std::uint8_t IB_MAD_METHOD_REPORT_RESP = 0x86;
constexpr std::uint8_t IB_MAD_METHOD_GETTABLE_RESP = 0x92;
constexpr std::uint8_t IB_MAD_METHOD_GETMULTI_RESP = 0x94;

// Status values common to all classes (IBA Vol1 13.4.7): bit 0 busy, bit 1 redirect, bits 4-2 a
// code (1 bad version, 2 method, 3 method/attribute, 7 invalid field), bits 15-8 class-specific.
constexpr std::uint16_t IB_MAD_STATUS_SUCCESS = 0x0000;
constexpr std::uint16_t IB_MAD_STATUS_BUSY = 0x0001;
constexpr std::uint16_t IB_MAD_STATUS_REDIRECT = 0x0002;
constexpr std::uint16_t IB_MAD_STATUS_UNSUP_CLASS_VER = 0x0004;
constexpr std::uint16_t IB_MAD_STATUS_UNSUP_METHOD = 0x0008;
constexpr std::uint16_t IB_MAD_STATUS_UNSUP_METHOD_ATTR = 0x000C;
constexpr std::uint16_t IB_MAD_STATUS_INVALID_FIELD = 0x001C;
constexpr std::uint16_t IB_MAD_STATUS_CLASS_MASK = 0xFF00;  // class-specific bits

// Attributes common to all classes.
constexpr std::uint16_t IB_MAD_ATTR_CLASS_PORT_INFO = 0x0001;
constexpr std::uint16_t IB_MAD_ATTR_NOTICE = 0x0002;
constexpr std::uint16_t IB_MAD_ATTR_INFORM_INFO = 0x0003;

// A decoded common MAD header. `method` includes the R bit. Reserved bytes 18-19 are written 0.
struct MadHeader {
  std::uint8_t base_version = kMadBaseVersion;
  std::uint8_t mgmt_class = 0;
  std::uint8_t class_version = 1;
  std::uint8_t method = 0;
  std::uint16_t status = 0;
  std::uint16_t class_specific = 0;
  std::uint64_t transaction_id = 0;
  std::uint16_t attribute_id = 0;
  std::uint32_t attribute_modifier = 0;
};

void encode_mad_header(const MadHeader& h, std::uint8_t* out24);
MadHeader decode_mad_header(const std::uint8_t* in24);

inline bool is_response_method(std::uint8_t method) { return method & IB_MAD_METHOD_RESP_MASK; }

}  // namespace ibfsim
