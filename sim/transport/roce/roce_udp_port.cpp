#include "sim/transport/roce/roce_udp_port.h"

namespace ibfsim {

std::uint32_t roce_flow_label(Qpn local_qpn, Qpn remote_qpn) {
  std::uint64_t v = std::uint64_t{local_qpn & 0xFFFFFFu} * (remote_qpn & 0xFFFFFFu);
  v ^= v >> 20;
  v ^= v >> 40;
  return static_cast<std::uint32_t>(v & 0xFFFFF);
}

std::uint16_t roce_udp_source_port(std::uint32_t flow_label) {
  const std::uint32_t low = flow_label & 0x3FFF;
  const std::uint32_t high = (flow_label & 0xFC000) >> 14;
  return static_cast<std::uint16_t>(kRoceUdpSourcePortMin | (low ^ high));
}

}  // namespace ibfsim
