#include "sim/subnet_manager/sa/node_record.h"

#include <algorithm>

#include "sim/core/big_endian.h"

namespace ibfsim {

void encode_node_record(const NodeRecord& r, std::uint8_t* out) {
  store_be16(out, r.lid);
  store_be16(out + 2, 0);
  const SmpData ni = encode_node_info(r.node_info);
  std::copy(ni.begin(), ni.begin() + kNodeInfoBytes, out + 4);
  const SmpData nd = encode_node_description(r.description);
  std::copy(nd.begin(), nd.end(), out + 4 + kNodeInfoBytes);
}

SaData encode_node_record(const NodeRecord& r) {
  SaData d{};
  encode_node_record(r, d.data());
  return d;
}

NodeRecord decode_node_record(const std::uint8_t* in) {
  NodeRecord r;
  r.lid = load_be16(in);
  r.node_info = decode_node_info(in + 4);
  r.description = decode_node_description(in + 4 + kNodeInfoBytes);
  return r;
}

}  // namespace ibfsim
