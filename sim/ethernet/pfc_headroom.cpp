#include "sim/ethernet/pfc_headroom.h"

#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/ethernet/pfc_frame.h"

namespace ibfsim {

std::uint64_t bytes_in_time(const EthernetRate& rate, Time t) {
  const std::uint64_t period = rate.info().byte_period_fs;
  return (static_cast<std::uint64_t>(t) + period - 1) / period;
}

PfcHeadroom pfc_headroom(const PfcHeadroomInputs& in) {
  PfcHeadroom h;
  h.own_frame = ethernet_wire_edges(in.mtu_frame_bytes);
  h.pause_frame = ethernet_wire_edges(kPfcFrameBytes);
  h.cable = 2 * bytes_in_time(in.rate, in.cable_propagation);
  h.phy = 2 * in.phy_edges;
  h.response = bytes_in_time(in.rate, in.response_time);
  h.peer_frame = ethernet_wire_edges(in.mtu_frame_bytes);
  h.head = kEthernetPreambleBytes + in.decision_bytes;
  return h;
}

}  // namespace ibfsim
