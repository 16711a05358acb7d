#include "sim/subnet_manager/mad/smp.h"

#include <algorithm>
#include <stdexcept>

#include <fmt/format.h>

#include "sim/core/big_endian.h"

namespace ibfsim {

Mad encode_smp(const Smp& smp) {
  Mad mad{};
  MadHeader h;
  h.base_version = smp.base_version;
  h.mgmt_class = smp.mgmt_class;
  h.class_version = smp.class_version;
  h.method = smp.method;
  h.transaction_id = smp.transaction_id;
  h.attribute_id = smp.attribute_id;
  h.attribute_modifier = smp.attribute_modifier;
  if (smp.directed()) {
    h.status = static_cast<std::uint16_t>((smp.direction ? IB_SMP_DIRECTION : 0) |
                                          (smp.status & IB_SMP_STATUS_MASK));
    h.class_specific = static_cast<std::uint16_t>(smp.hop_pointer << 8 | smp.hop_count);
  } else {
    h.status = smp.status;
  }
  encode_mad_header(h, mad.data());
  store_be64(&mad[kSmpMKeyAt], smp.m_key);
  std::copy(smp.data.begin(), smp.data.end(), &mad[kSmpDataAt]);
  if (smp.directed()) {
    store_be16(&mad[kSmpDrSlidAt], smp.dr_slid);
    store_be16(&mad[kSmpDrDlidAt], smp.dr_dlid);
    std::copy(smp.initial_path.begin(), smp.initial_path.end(), &mad[kSmpInitialPathAt]);
    std::copy(smp.return_path.begin(), smp.return_path.end(), &mad[kSmpReturnPathAt]);
  }
  return mad;
}

std::optional<Smp> decode_smp(const std::uint8_t* mad256) {
  const MadHeader h = decode_mad_header(mad256);
  if (h.mgmt_class != IB_MCLASS_SUBN_LID && h.mgmt_class != IB_MCLASS_SUBN_DIR) return std::nullopt;
  Smp smp;
  smp.mgmt_class = h.mgmt_class;
  smp.base_version = h.base_version;
  smp.class_version = h.class_version;
  smp.method = h.method;
  smp.transaction_id = h.transaction_id;
  smp.attribute_id = h.attribute_id;
  smp.attribute_modifier = h.attribute_modifier;
  smp.m_key = load_be64(mad256 + kSmpMKeyAt);
  std::copy_n(mad256 + kSmpDataAt, kSmpDataBytes, smp.data.begin());
  if (smp.directed()) {
    smp.status = h.status & IB_SMP_STATUS_MASK;
    smp.direction = h.status & IB_SMP_DIRECTION;
    smp.hop_pointer = static_cast<std::uint8_t>(h.class_specific >> 8);
    smp.hop_count = static_cast<std::uint8_t>(h.class_specific);
    smp.dr_slid = load_be16(mad256 + kSmpDrSlidAt);
    smp.dr_dlid = load_be16(mad256 + kSmpDrDlidAt);
    std::copy_n(mad256 + kSmpInitialPathAt, kSmpPathBytes, smp.initial_path.begin());
    std::copy_n(mad256 + kSmpReturnPathAt, kSmpPathBytes, smp.return_path.begin());
  } else {
    smp.status = h.status;
    smp.dr_slid = 0;
    smp.dr_dlid = 0;
  }
  return smp;
}

Smp make_smp_response(const Smp& request, std::uint16_t status) {
  Smp response = request;
  switch (request.method) {
    case IB_MAD_METHOD_GET:
    case IB_MAD_METHOD_SET:
      response.method = IB_MAD_METHOD_GET_RESP;
      break;
    case IB_MAD_METHOD_TRAP:
      response.method = IB_MAD_METHOD_TRAP_REPRESS;
      break;
    default:
      throw std::invalid_argument(fmt::format("no SMP response to method {:#04x}", request.method));
  }
  response.status = request.directed() ? (status & IB_SMP_STATUS_MASK) : status;
  if (request.directed()) response.direction = true;
  return response;
}

}  // namespace ibfsim
