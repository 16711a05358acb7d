#include "sim/subnet_manager/mad/mad_header.h"

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_mad_header(const MadHeader& h, std::uint8_t* out24) {
  out24[0] = h.base_version;
  out24[1] = h.mgmt_class;
  out24[2] = h.class_version;
  out24[3] = h.method;
  store_be16(out24 + 4, h.status);
  store_be16(out24 + 6, h.class_specific);
  store_be64(out24 + 8, h.transaction_id);
  store_be16(out24 + 16, h.attribute_id);
  store_be16(out24 + 18, 0);
  store_be32(out24 + 20, h.attribute_modifier);
}

MadHeader decode_mad_header(const std::uint8_t* in24) {
  MadHeader h;
  h.base_version = in24[0];
  h.mgmt_class = in24[1];
  h.class_version = in24[2];
  h.method = in24[3];
  h.status = load_be16(in24 + 4);
  h.class_specific = load_be16(in24 + 6);
  h.transaction_id = load_be64(in24 + 8);
  h.attribute_id = load_be16(in24 + 16);
  h.attribute_modifier = load_be32(in24 + 20);
  return h;
}

}  // namespace ibfsim
