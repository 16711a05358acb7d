#include "sim/subnet_manager/sa/port_info_record.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_port_info_record(const PortInfoRecord& r, std::uint8_t* out) {
  store_be16(out, r.endport_lid);
  out[2] = r.port_num;
  out[3] = 0;
  const SmpData pi = encode_port_info(r.port_info);
  std::copy(pi.begin(), pi.end(), out + 4);
}

SaData encode_port_info_record(const PortInfoRecord& r) {
  SaData d{};
  encode_port_info_record(r, d.data());
  return d;
}

PortInfoRecord decode_port_info_record(const std::uint8_t* in) {
  PortInfoRecord r;
  r.endport_lid = load_be16(in);
  r.port_num = in[2];
  r.port_info = decode_port_info(in + 4);
  return r;
}

}  // namespace ibfsim
