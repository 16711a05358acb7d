#include "sim/transport/roce/roce_priority.h"

#include "sim/ethernet/ip_traffic_class.h"

namespace ibfsim {

std::uint8_t roce_frame_priority(const Packet& ib, const RocePortConfig& port) {
  if (port.pcp) return static_cast<std::uint8_t>(*port.pcp & 7);
  std::uint8_t dscp = port.dscp;
  if (decode_lrh(ib.header.data()).lnh == kLnhIbaGlobal)
    dscp = traffic_class_dscp(decode_grh(ib.header.data() + kLrhBytes).tclass);
  return static_cast<std::uint8_t>(dscp >> 3 & 7);
}

}  // namespace ibfsim
