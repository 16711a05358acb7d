#include "sim/subnet_manager/cm/cm_messages.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

namespace {

Mad cm_mad(std::uint16_t attribute, std::uint64_t tid) {
  MadHeader h;
  h.mgmt_class = IB_MCLASS_COMM_MGMT;
  h.class_version = kCmClassVersion;
  h.method = IB_MAD_METHOD_SEND;
  h.transaction_id = tid;
  h.attribute_id = attribute;
  Mad m{};
  encode_mad_header(h, m.data());
  return m;
}

std::uint8_t* data(Mad& m) { return m.data() + kCmDataAt; }
const std::uint8_t* data(const Mad& m) { return m.data() + kCmDataAt; }

void put24(std::uint8_t* p, std::uint32_t v24, std::uint8_t low) { store_be32(p, (v24 & 0xFFFFFF) << 8 | low); }

void encode_path(const CmPath& a, std::uint8_t* p) {
  store_be16(p, a.local_lid);
  store_be16(p + 2, a.remote_lid);
  std::copy(a.local_gid.begin(), a.local_gid.end(), p + 4);
  std::copy(a.remote_gid.begin(), a.remote_gid.end(), p + 20);
  store_be32(p + 36, (a.flow_label & 0xFFFFF) << 12 | (a.packet_rate & 0x3F));
  p[40] = a.traffic_class;
  p[41] = a.hop_limit;
  p[42] = static_cast<std::uint8_t>((a.sl & 0xF) << 4 | (a.subnet_local ? 0x08 : 0));
  p[43] = static_cast<std::uint8_t>((a.local_ack_timeout & 0x1F) << 3);
}

CmPath decode_path(const std::uint8_t* p) {
  CmPath a;
  a.local_lid = load_be16(p);
  a.remote_lid = load_be16(p + 2);
  std::copy(p + 4, p + 20, a.local_gid.begin());
  std::copy(p + 20, p + 36, a.remote_gid.begin());
  const std::uint32_t w = load_be32(p + 36);
  a.flow_label = w >> 12;
  a.packet_rate = w & 0x3F;
  a.traffic_class = p[40];
  a.hop_limit = p[41];
  a.sl = p[42] >> 4;
  a.subnet_local = p[42] & 0x08;
  a.local_ack_timeout = p[43] >> 3;
  return a;
}

}  // namespace

Mad encode_cm_req(const CmReq& r, std::uint64_t tid) {
  Mad m = cm_mad(IB_MAD_ATTR_CM_REQ, tid);
  std::uint8_t* p = data(m);
  store_be32(p, r.local_comm_id);
  store_be64(p + 8, r.service_id);
  store_be64(p + 16, r.local_ca_guid);
  store_be32(p + 28, r.local_q_key);
  put24(p + 32, r.local_qpn, r.responder_resources);
  put24(p + 36, r.local_eecn, r.initiator_depth);
  put24(p + 40, r.remote_eecn,
        static_cast<std::uint8_t>((r.remote_cm_response_timeout & 0x1F) << 3 | (r.transport & 3) << 1 |
                                  (r.end_to_end_flow_control ? 1 : 0)));
  put24(p + 44, r.starting_psn, static_cast<std::uint8_t>((r.local_cm_response_timeout & 0x1F) << 3 | (r.retry_count & 7)));
  store_be16(p + 48, r.p_key);
  p[50] = static_cast<std::uint8_t>((r.path_mtu & 0xF) << 4 | (r.rdc_exists ? 0x08 : 0) | (r.rnr_retry_count & 7));
  p[51] = static_cast<std::uint8_t>((r.max_cm_retries & 0xF) << 4 | (r.srq ? 0x08 : 0) | (r.extended_transport & 7));
  encode_path(r.primary, p + 52);
  if (r.alternate) encode_path(*r.alternate, p + 96);
  std::copy(r.private_data.begin(), r.private_data.end(), p + 140);
  return m;
}

CmReq decode_cm_req(const Mad& m) {
  const std::uint8_t* p = data(m);
  CmReq r;
  r.local_comm_id = load_be32(p);
  r.service_id = load_be64(p + 8);
  r.local_ca_guid = load_be64(p + 16);
  r.local_q_key = load_be32(p + 28);
  r.local_qpn = load_be24(p + 32);
  r.responder_resources = p[35];
  r.local_eecn = load_be24(p + 36);
  r.initiator_depth = p[39];
  r.remote_eecn = load_be24(p + 40);
  r.remote_cm_response_timeout = p[43] >> 3;
  r.transport = (p[43] >> 1) & 3;
  r.end_to_end_flow_control = p[43] & 1;
  r.starting_psn = load_be24(p + 44);
  r.local_cm_response_timeout = p[47] >> 3;
  r.retry_count = p[47] & 7;
  r.p_key = load_be16(p + 48);
  r.path_mtu = p[50] >> 4;
  r.rdc_exists = p[50] & 0x08;
  r.rnr_retry_count = p[50] & 7;
  r.max_cm_retries = p[51] >> 4;
  r.srq = p[51] & 0x08;
  r.extended_transport = p[51] & 7;
  r.primary = decode_path(p + 52);
  if (load_be16(p + 96) != 0) r.alternate = decode_path(p + 96);
  std::copy(p + 140, p + 232, r.private_data.begin());
  return r;
}

Mad encode_cm_rep(const CmRep& r, std::uint64_t tid) {
  Mad m = cm_mad(IB_MAD_ATTR_CM_REP, tid);
  std::uint8_t* p = data(m);
  store_be32(p, r.local_comm_id);
  store_be32(p + 4, r.remote_comm_id);
  store_be32(p + 8, r.local_q_key);
  put24(p + 12, r.local_qpn, 0);
  put24(p + 16, r.local_eecn, 0);
  put24(p + 20, r.starting_psn, 0);
  p[24] = r.responder_resources;
  p[25] = r.initiator_depth;
  p[26] = static_cast<std::uint8_t>((r.target_ack_delay & 0x1F) << 3 | (r.failover_accepted & 3) << 1 |
                                    (r.end_to_end_flow_control ? 1 : 0));
  p[27] = static_cast<std::uint8_t>((r.rnr_retry_count & 7) << 5 | (r.srq ? 0x10 : 0));
  store_be64(p + 28, r.local_ca_guid);
  std::copy(r.private_data.begin(), r.private_data.end(), p + 36);
  return m;
}

CmRep decode_cm_rep(const Mad& m) {
  const std::uint8_t* p = data(m);
  CmRep r;
  r.local_comm_id = load_be32(p);
  r.remote_comm_id = load_be32(p + 4);
  r.local_q_key = load_be32(p + 8);
  r.local_qpn = load_be24(p + 12);
  r.local_eecn = load_be24(p + 16);
  r.starting_psn = load_be24(p + 20);
  r.responder_resources = p[24];
  r.initiator_depth = p[25];
  r.target_ack_delay = p[26] >> 3;
  r.failover_accepted = (p[26] >> 1) & 3;
  r.end_to_end_flow_control = p[26] & 1;
  r.rnr_retry_count = p[27] >> 5;
  r.srq = p[27] & 0x10;
  r.local_ca_guid = load_be64(p + 28);
  std::copy(p + 36, p + 232, r.private_data.begin());
  return r;
}

Mad encode_cm_rtu(const CmRtu& r, std::uint64_t tid) {
  Mad m = cm_mad(IB_MAD_ATTR_CM_RTU, tid);
  store_be32(data(m), r.local_comm_id);
  store_be32(data(m) + 4, r.remote_comm_id);
  return m;
}

CmRtu decode_cm_rtu(const Mad& m) { return {load_be32(data(m)), load_be32(data(m) + 4)}; }

Mad encode_cm_rej(const CmRej& r, std::uint64_t tid) {
  Mad m = cm_mad(IB_MAD_ATTR_CM_REJ, tid);
  std::uint8_t* p = data(m);
  store_be32(p, r.local_comm_id);
  store_be32(p + 4, r.remote_comm_id);
  p[8] = static_cast<std::uint8_t>((r.message_rejected & 3) << 6);
  p[9] = static_cast<std::uint8_t>((r.reject_info_length & 0x7F) << 1);
  store_be16(p + 10, r.reason);
  std::copy(r.ari.begin(), r.ari.end(), p + 12);
  return m;
}

CmRej decode_cm_rej(const Mad& m) {
  const std::uint8_t* p = data(m);
  CmRej r;
  r.local_comm_id = load_be32(p);
  r.remote_comm_id = load_be32(p + 4);
  r.message_rejected = p[8] >> 6;
  r.reject_info_length = p[9] >> 1;
  r.reason = load_be16(p + 10);
  std::copy(p + 12, p + 84, r.ari.begin());
  return r;
}

Mad encode_cm_mra(const CmMra& r, std::uint64_t tid) {
  Mad m = cm_mad(IB_MAD_ATTR_CM_MRA, tid);
  std::uint8_t* p = data(m);
  store_be32(p, r.local_comm_id);
  store_be32(p + 4, r.remote_comm_id);
  p[8] = static_cast<std::uint8_t>((r.message_mraed & 3) << 6);
  p[9] = static_cast<std::uint8_t>((r.service_timeout & 0x1F) << 3);
  return m;
}

CmMra decode_cm_mra(const Mad& m) {
  const std::uint8_t* p = data(m);
  CmMra r;
  r.local_comm_id = load_be32(p);
  r.remote_comm_id = load_be32(p + 4);
  r.message_mraed = p[8] >> 6;
  r.service_timeout = p[9] >> 3;
  return r;
}

Mad encode_cm_dreq(const CmDreq& r, std::uint64_t tid) {
  Mad m = cm_mad(IB_MAD_ATTR_CM_DREQ, tid);
  store_be32(data(m), r.local_comm_id);
  store_be32(data(m) + 4, r.remote_comm_id);
  put24(data(m) + 8, r.remote_qpn, 0);
  return m;
}

CmDreq decode_cm_dreq(const Mad& m) { return {load_be32(data(m)), load_be32(data(m) + 4), load_be24(data(m) + 8)}; }

Mad encode_cm_drep(const CmDrep& r, std::uint64_t tid) {
  Mad m = cm_mad(IB_MAD_ATTR_CM_DREP, tid);
  store_be32(data(m), r.local_comm_id);
  store_be32(data(m) + 4, r.remote_comm_id);
  return m;
}

CmDrep decode_cm_drep(const Mad& m) { return {load_be32(data(m)), load_be32(data(m) + 4)}; }

}  // namespace ibfsim
