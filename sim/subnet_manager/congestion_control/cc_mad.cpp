#include "sim/subnet_manager/congestion_control/cc_mad.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

Mad encode_cc_mad(const CcMad& m) {
  Mad out{};
  encode_mad_header(m.header, out.data());
  store_be64(out.data() + kCcKeyOffset, m.cc_key);
  std::copy(m.log_data.begin(), m.log_data.end(), out.begin() + kCcLogDataOffset);
  std::copy(m.data.begin(), m.data.end(), out.begin() + kCcMgmtDataOffset);
  return out;
}

CcMad decode_cc_mad(const Mad& mad) {
  CcMad m;
  m.header = decode_mad_header(mad.data());
  m.cc_key = load_be64(mad.data() + kCcKeyOffset);
  std::copy_n(mad.begin() + kCcLogDataOffset, kCcLogDataBytes, m.log_data.begin());
  std::copy_n(mad.begin() + kCcMgmtDataOffset, kCcMgmtDataBytes, m.data.begin());
  return m;
}

CcMad make_cc_mad(std::uint8_t method, std::uint16_t attribute_id, std::uint32_t attribute_modifier,
                  const CcMgmtData& data, std::uint64_t transaction_id, std::uint64_t cc_key) {
  CcMad m;
  m.header.mgmt_class = IB_MCLASS_CC;
  m.header.class_version = kCcClassVersion;
  m.header.method = method;
  m.header.transaction_id = transaction_id;
  m.header.attribute_id = attribute_id;
  m.header.attribute_modifier = attribute_modifier;
  m.cc_key = cc_key;
  m.data = data;
  return m;
}

}  // namespace ibfsim
