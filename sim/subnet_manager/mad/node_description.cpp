#include "sim/subnet_manager/mad/node_description.h"

#include <algorithm>

namespace ibfsim {

SmpData encode_node_description(const NodeDescription& nd) {
  SmpData out{};
  std::copy_n(nd.text.begin(), std::min(nd.text.size(), kNodeDescriptionBytes), out.begin());
  return out;
}

NodeDescription decode_node_description(const std::uint8_t* in64) {
  const std::uint8_t* end = std::find(in64, in64 + kNodeDescriptionBytes, 0);
  return {std::string(in64, end)};
}

}  // namespace ibfsim
