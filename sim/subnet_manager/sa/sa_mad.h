// The Subnet Administration MAD (management class 0x03, IBA Vol1 15.2.1): a GMP on QP1, 256 bytes,
//   0-23 the common MAD header (mad_header.h, ClassVersion 2);
//   24-35 the RMPP header: 24 RMPPVersion; 25 RMPPType; 26 RRespTime (7-3) | RMPPFlags (2-0);
//   27 RMPPStatus; 28-31 Data1 (SegmentNumber of a DATA segment); 32-35 Data2 (PayloadLength);
//   36-43 SM_Key; 44-45 AttributeOffset (the size of one record in 8-byte words, in answers that
//   carry several); 46-47 reserved; 48-55 ComponentMask (which fields of the query record are
//   compared); 56-255 SubnetAdminData (200 bytes: the record or records).
// ibfsim answers only with what fits one MAD: a Get answers one record, a GetTable the records
// that fit the 200 bytes as one RMPP segment (Active, First and Last set) and refuses more with
// ERR_TOO_MANY_RECORDS; multi-segment RMPP transfers are not modelled.
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>

#include "sim/subnet_manager/mad/mad_header.h"

namespace ibfsim {

constexpr std::uint8_t kSaClassVersion = 2;
constexpr std::size_t kSaRmppAt = 24;
constexpr std::size_t kSaSmKeyAt = 36;
constexpr std::size_t kSaAttributeOffsetAt = 44;
constexpr std::size_t kSaComponentMaskAt = 48;
constexpr std::size_t kSaDataAt = 56;
constexpr std::size_t kSaDataBytes = 200;
constexpr std::size_t kSaHeaderBytes = kSaDataAt - kSaSmKeyAt;  // SM_Key to ComponentMask: 20

// Attributes of the class (OpenSM's IB_MAD_ATTR_*_RECORD).
constexpr std::uint16_t IB_MAD_ATTR_NODE_RECORD = 0x0011;
constexpr std::uint16_t IB_MAD_ATTR_PORTINFO_RECORD = 0x0012;
constexpr std::uint16_t IB_MAD_ATTR_PATH_RECORD = 0x0035;
constexpr std::uint16_t IB_MAD_ATTR_MCMEMBER_RECORD = 0x0038;

// SA status codes (the class-specific bits 15-8 of Status, IBA Vol1 15.2.1.1).
constexpr std::uint16_t IB_SA_MAD_STATUS_NO_RESOURCES = 0x0100;
constexpr std::uint16_t IB_SA_MAD_STATUS_REQ_INVALID = 0x0200;
constexpr std::uint16_t IB_SA_MAD_STATUS_NO_RECORDS = 0x0300;
constexpr std::uint16_t IB_SA_MAD_STATUS_TOO_MANY_RECORDS = 0x0400;
constexpr std::uint16_t IB_SA_MAD_STATUS_INVALID_GID = 0x0500;
constexpr std::uint16_t IB_SA_MAD_STATUS_INSUF_COMPS = 0x0600;

// RMPP (IBA Vol1 13.6.2): the one-segment transfer a GetTable answer uses.
constexpr std::uint8_t kRmppVersion = 1;
constexpr std::uint8_t IB_RMPP_TYPE_DATA = 1;
constexpr std::uint8_t IB_RMPP_FLAG_ACTIVE = 0x01;
constexpr std::uint8_t IB_RMPP_FLAG_FIRST = 0x02;
constexpr std::uint8_t IB_RMPP_FLAG_LAST = 0x04;

struct RmppHeader {
  std::uint8_t version = 0;  // 0: no RMPP (every field below then 0)
  std::uint8_t type = 0;
  std::uint8_t resp_time = 0;  // 5 bits
  std::uint8_t flags = 0;      // 3 bits
  std::uint8_t status = 0;
  std::uint32_t data1 = 0;  // DATA: SegmentNumber
  std::uint32_t data2 = 0;  // DATA: PayloadLength (first segment: the whole transfer's)
};

using SaData = std::array<std::uint8_t, kSaDataBytes>;

struct SaMad {
  MadHeader header;  // mgmt_class 0x03, class_version 2 when built by make_sa_request
  RmppHeader rmpp;
  std::uint64_t sm_key = 0;
  std::uint16_t attribute_offset = 0;  // 8-byte words
  std::uint64_t component_mask = 0;
  SaData data{};
};

Mad encode_sa_mad(const SaMad& m);
SaMad decode_sa_mad(const Mad& mad);

// A query or request: Get, GetTable, Set or Delete of `attribute_id` with `record` (its encoding,
// padded with zeros to 200 bytes) and the mask of the fields that count.
SaMad make_sa_request(std::uint8_t method, std::uint16_t attribute_id, std::uint64_t component_mask,
                      const SaData& record, std::uint64_t transaction_id);

// The answer to `request`: the method with the R bit (GetTable -> GetTableResp, Get, Set ->
// GetResp, Delete -> DeleteResp), the same TID, attribute and modifier, `status`; no records.
SaMad make_sa_response(const SaMad& request, std::uint16_t status);

}  // namespace ibfsim
