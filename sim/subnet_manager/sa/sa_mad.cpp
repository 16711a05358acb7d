#include "sim/subnet_manager/sa/sa_mad.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

Mad encode_sa_mad(const SaMad& m) {
  Mad out{};
  encode_mad_header(m.header, out.data());
  out[24] = m.rmpp.version;
  out[25] = m.rmpp.type;
  out[26] = static_cast<std::uint8_t>((m.rmpp.resp_time & 0x1F) << 3 | (m.rmpp.flags & 0x07));
  out[27] = m.rmpp.status;
  store_be32(&out[28], m.rmpp.data1);
  store_be32(&out[32], m.rmpp.data2);
  store_be64(&out[kSaSmKeyAt], m.sm_key);
  store_be16(&out[kSaAttributeOffsetAt], m.attribute_offset);
  store_be64(&out[kSaComponentMaskAt], m.component_mask);
  std::copy(m.data.begin(), m.data.end(), out.begin() + kSaDataAt);
  return out;
}

SaMad decode_sa_mad(const Mad& mad) {
  SaMad m;
  m.header = decode_mad_header(mad.data());
  m.rmpp.version = mad[24];
  m.rmpp.type = mad[25];
  m.rmpp.resp_time = mad[26] >> 3;
  m.rmpp.flags = mad[26] & 0x07;
  m.rmpp.status = mad[27];
  m.rmpp.data1 = load_be32(&mad[28]);
  m.rmpp.data2 = load_be32(&mad[32]);
  m.sm_key = load_be64(&mad[kSaSmKeyAt]);
  m.attribute_offset = load_be16(&mad[kSaAttributeOffsetAt]);
  m.component_mask = load_be64(&mad[kSaComponentMaskAt]);
  std::copy(mad.begin() + kSaDataAt, mad.end(), m.data.begin());
  return m;
}

SaMad make_sa_request(std::uint8_t method, std::uint16_t attribute_id, std::uint64_t component_mask,
                      const SaData& record, std::uint64_t transaction_id) {
  SaMad m;
  m.header.mgmt_class = IB_MCLASS_SUBN_ADM;
  m.header.class_version = kSaClassVersion;
  m.header.method = method;
  m.header.transaction_id = transaction_id;
  m.header.attribute_id = attribute_id;
  m.component_mask = component_mask;
  m.data = record;
  return m;
}

SaMad make_sa_response(const SaMad& request, std::uint16_t status) {
  SaMad r;
  r.header = request.header;
  r.header.status = status;
  switch (request.header.method) {
    case IB_MAD_METHOD_GETTABLE: r.header.method = IB_MAD_METHOD_GETTABLE_RESP; break;
    case IB_MAD_METHOD_DELETE: r.header.method = IB_MAD_METHOD_DELETE | IB_MAD_METHOD_RESP_MASK; break;
    default: r.header.method = IB_MAD_METHOD_GET_RESP; break;
  }
  r.sm_key = request.sm_key;
  r.component_mask = request.component_mask;
  return r;
}

}  // namespace ibfsim
