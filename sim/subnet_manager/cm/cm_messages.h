// The Communication Management messages (management class 0x07, IBA Vol1 12.6): GMPs on QP1 whose
// 256-byte MAD is the common MAD header (mad_header.h, ClassVersion 2, Method Send 0x03) and 232
// bytes of message at MAD byte 24. Offsets below are within those 232 bytes, big-endian.
//   REQ  (0x0010): 0 LocalCommID; 4 reserved; 8 ServiceID; 16 LocalCAGUID; 24 reserved;
//        28 LocalQ_Key; 32 LocalQPN (24) | ResponderResources (8); 36 LocalEECN (24) |
//        InitiatorDepth (8); 40 RemoteEECN (24) | RemoteCMResponseTimeout (5) |
//        TransportServiceType (2) | EndToEndFlowControl (1); 44 StartingPSN (24) |
//        LocalCMResponseTimeout (5) | RetryCount (3); 48 P_Key; 50 PathMTU (4) | RDCExists (1) |
//        RNRRetryCount (3); 51 MaxCMRetries (4) | SRQ (1) | ExtendedTransportType (3);
//        52 the primary path (44 bytes, CmPath), 96 the alternate path, 140 PrivateData (92).
//        A path: 0 LocalPortLID; 2 RemotePortLID; 4 LocalPortGID; 20 RemotePortGID;
//        36 FlowLabel (20) | reserved (6) | PacketRate (6); 40 TrafficClass; 41 HopLimit;
//        42 SL (4) | SubnetLocal (1) | reserved (3); 43 LocalACKTimeout (5) | reserved (3).
//   MRA  (0x0011): 0 LocalCommID; 4 RemoteCommID; 8 MessageMRAed (2) | reserved;
//        9 ServiceTimeout (5) | reserved; 10 PrivateData (222).
//   REJ  (0x0012): 0 LocalCommID; 4 RemoteCommID; 8 MessageREJected (2) | reserved;
//        9 RejectInfoLength (7) | reserved; 10 Reason (16); 12 ARI (72); 84 PrivateData (148).
//   REP  (0x0013): 0 LocalCommID; 4 RemoteCommID; 8 LocalQ_Key; 12 LocalQPN (24); 16 LocalEECN
//        (24); 20 StartingPSN (24); 24 ResponderResources; 25 InitiatorDepth; 26 TargetACKDelay (5)
//        | FailoverAccepted (2) | EndToEndFlowControl (1); 27 RNRRetryCount (3) | SRQ (1) |
//        reserved; 28 LocalCAGUID; 36 PrivateData (196).
//   RTU  (0x0014): 0 LocalCommID; 4 RemoteCommID; 8 PrivateData (224).
//   DREQ (0x0015): 0 LocalCommID; 4 RemoteCommID; 8 RemoteQPN/EECN (24); 12 PrivateData (220).
//   DREP (0x0016): 0 LocalCommID; 4 RemoteCommID; 8 PrivateData (224).
// Private data is carried as zeros (its length is what counts on the wire: the MAD is 256 bytes
// whatever it holds).
#pragma once
#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>

#include "sim/core/ids.h"
#include "sim/core/time.h"
#include "sim/subnet_manager/mad/mad_header.h"
#include "sim/subnet_manager/sa/path_record.h"  // Gid

namespace ibfsim {

constexpr std::uint8_t kCmClassVersion = 2;
constexpr std::size_t kCmDataAt = 24;
constexpr std::size_t kCmDataBytes = 232;

constexpr std::uint16_t IB_MAD_ATTR_CM_REQ = 0x0010;
constexpr std::uint16_t IB_MAD_ATTR_CM_MRA = 0x0011;
constexpr std::uint16_t IB_MAD_ATTR_CM_REJ = 0x0012;
constexpr std::uint16_t IB_MAD_ATTR_CM_REP = 0x0013;
constexpr std::uint16_t IB_MAD_ATTR_CM_RTU = 0x0014;
constexpr std::uint16_t IB_MAD_ATTR_CM_DREQ = 0x0015;
constexpr std::uint16_t IB_MAD_ATTR_CM_DREP = 0x0016;

// Transport service types in a REQ.
constexpr std::uint8_t kCmTransportRc = 0, kCmTransportUc = 1, kCmTransportRd = 2;
// MessageMRAed / MessageREJected: which message the MRA or REJ answers.
constexpr std::uint8_t kCmMsgReq = 0, kCmMsgRep = 1, kCmMsgOther = 2;
// REJ reasons used here (IBA Vol1 table 112; Linux's enum ib_cm_rej_reason has the same numbers).
constexpr std::uint16_t kCmRejNoQp = 1;
constexpr std::uint16_t kCmRejNoResources = 3;
constexpr std::uint16_t kCmRejTimeout = 4;
constexpr std::uint16_t kCmRejInvalidServiceId = 8;
constexpr std::uint16_t kCmRejStaleConnection = 10;
constexpr std::uint16_t kCmRejConsumerReject = 28;

struct CmPath {
  Lid local_lid = 0, remote_lid = 0;
  Gid local_gid{}, remote_gid{};
  std::uint32_t flow_label = 0;  // 20 bits
  std::uint8_t packet_rate = 0;  // 6 bits, the SA rate code
  std::uint8_t traffic_class = 0, hop_limit = 0;
  std::uint8_t sl = 0;  // 4 bits
  bool subnet_local = true;
  std::uint8_t local_ack_timeout = 0;  // 5 bits
};

struct CmReq {
  std::uint32_t local_comm_id = 0;
  std::uint64_t service_id = 0;
  Guid local_ca_guid = 0;
  std::uint32_t local_q_key = 0;
  Qpn local_qpn = 0;
  std::uint8_t responder_resources = 0, initiator_depth = 0;
  std::uint32_t local_eecn = 0, remote_eecn = 0;
  std::uint8_t remote_cm_response_timeout = 0;  // 5 bits: 4.096 us x 2^n
  std::uint8_t transport = kCmTransportRc;
  bool end_to_end_flow_control = false;
  std::uint32_t starting_psn = 0;
  std::uint8_t local_cm_response_timeout = 0;
  std::uint8_t retry_count = 0;  // 3 bits
  std::uint16_t p_key = 0xFFFF;
  std::uint8_t path_mtu = 0;  // 4 bits, MTU code
  bool rdc_exists = false;
  std::uint8_t rnr_retry_count = 0;  // 3 bits
  std::uint8_t max_cm_retries = 0;   // 4 bits
  bool srq = false;
  std::uint8_t extended_transport = 0;
  CmPath primary;
  std::optional<CmPath> alternate;  // encoded as zeros when absent (a zero LocalPortLID)
  std::array<std::uint8_t, 92> private_data{};  // the consumer's (IPoIB CM: its QPN and MTU)
};

struct CmRep {
  std::uint32_t local_comm_id = 0, remote_comm_id = 0;
  std::uint32_t local_q_key = 0;
  Qpn local_qpn = 0;
  std::uint32_t local_eecn = 0;
  std::uint32_t starting_psn = 0;
  std::uint8_t responder_resources = 0, initiator_depth = 0;
  std::uint8_t target_ack_delay = 0;  // 5 bits
  std::uint8_t failover_accepted = 0;  // 2 bits
  bool end_to_end_flow_control = false;
  std::uint8_t rnr_retry_count = 0;
  bool srq = false;
  Guid local_ca_guid = 0;
  std::array<std::uint8_t, 196> private_data{};
};

struct CmRtu {
  std::uint32_t local_comm_id = 0, remote_comm_id = 0;
};

struct CmRej {
  std::uint32_t local_comm_id = 0, remote_comm_id = 0;
  std::uint8_t message_rejected = kCmMsgReq;
  std::uint8_t reject_info_length = 0;  // 7 bits
  std::uint16_t reason = 0;
  std::array<std::uint8_t, 72> ari{};
};

struct CmMra {
  std::uint32_t local_comm_id = 0, remote_comm_id = 0;
  std::uint8_t message_mraed = kCmMsgReq;
  std::uint8_t service_timeout = 0;  // 5 bits: 4.096 us x 2^n
};

struct CmDreq {
  std::uint32_t local_comm_id = 0, remote_comm_id = 0;
  Qpn remote_qpn = 0;
};

struct CmDrep {
  std::uint32_t local_comm_id = 0, remote_comm_id = 0;
};

// Each message as a whole MAD (header: class 0x07, version 2, Send, the TID given, its attribute).
Mad encode_cm_req(const CmReq& m, std::uint64_t tid);
Mad encode_cm_rep(const CmRep& m, std::uint64_t tid);
Mad encode_cm_rtu(const CmRtu& m, std::uint64_t tid);
Mad encode_cm_rej(const CmRej& m, std::uint64_t tid);
Mad encode_cm_mra(const CmMra& m, std::uint64_t tid);
Mad encode_cm_dreq(const CmDreq& m, std::uint64_t tid);
Mad encode_cm_drep(const CmDrep& m, std::uint64_t tid);

// Decoders read the 232 bytes at MAD byte 24 (the caller has checked class and attribute).
CmReq decode_cm_req(const Mad& mad);
CmRep decode_cm_rep(const Mad& mad);
CmRtu decode_cm_rtu(const Mad& mad);
CmRej decode_cm_rej(const Mad& mad);
CmMra decode_cm_mra(const Mad& mad);
CmDreq decode_cm_dreq(const Mad& mad);
CmDrep decode_cm_drep(const Mad& mad);

// The CM timeouts' unit: 4.096 us x 2^n (n 0..31).
inline Time cm_timeout(std::uint8_t n) { return Time{4096} * kNs * (Time{1} << (n & 31)); }

}  // namespace ibfsim
