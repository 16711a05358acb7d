#include "sim/ethernet/ethernet_wire.h"

#include <algorithm>

#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/ethernet/ethernet_port.h"
#include "sim/ethernet/ethernet_wire_rank_codec.h"
#include "sim/core/rank_event_codec.h"
#include "sim/ethernet/l3_forwarding.h"

namespace ibfsim {

EthernetWire::EthernetWire(EthernetPort& far_end, ScheduledModule& far_module, const EthernetRate& rate,
                           std::uint64_t prop_edges, Time decoder_latency, std::uint32_t link_id)
    : far_end_(far_end), far_module_(far_module), rate_(rate), clock_(rate.clock()), prop_edges_(prop_edges),
      fec_(rate.fec_timing(decoder_latency)), link_id_(link_id) {
  // What this wire schedules may cross to another MPI rank (ethernet_wire_rank_codec.h).
  register_ethernet_wire_rank_events();
  add_rank_target(&far_end_);
}

EthernetWire::~EthernetWire() { remove_rank_target(&far_end_); }

std::uint64_t EthernetWire::arrival_edge(std::uint64_t c, std::uint64_t n) const {
  return ethernet_available_edge(fec_, c, n) + prop_edges_;
}

void EthernetWire::carry(Packet* p, std::uint64_t c, std::uint64_t bytes) {
  // The head is what an L3 switch decides on; every byte of it lies in the packet's header.
  const std::uint64_t head = std::min<std::uint64_t>(l3_decision_bytes(p->header.data(), p->header_len), bytes);
  far_module_.schedule<&EthernetPort::head_arrives>(clock_.time_of(arrival_edge(c, head)), &far_end_, p,
                                                    clock_.time_of(arrival_edge(c, bytes)));
}

}  // namespace ibfsim
