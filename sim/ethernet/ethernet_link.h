// An Ethernet cable between two ports: its two wires (one per direction, ethernet_wire.h), built
// once when the fabric is cabled, as sim/link/link.h is for InfiniBand. Both directions run the
// same rate and FEC.
#pragma once
#include <cstdint>
#include <memory>

#include "sim/ethernet/ethernet_port.h"
#include "sim/ethernet/ethernet_wire.h"

namespace ibfsim {

class EthernetLink {
 public:
  // `prop_edges`: the cable's propagation in whole edges of the rate's byte clock, each way;
  // `decoder_latency`: the FEC decoder's own time; `id_ab`/`id_ba` name the directions in captures.
  EthernetLink(EthernetPort& a, ScheduledModule& a_module, EthernetPort& b, ScheduledModule& b_module,
               const EthernetRate& rate, std::uint64_t prop_edges, Time decoder_latency, std::uint32_t id_ab,
               std::uint32_t id_ba);
  EthernetLink(const EthernetLink&) = delete;
  EthernetLink& operator=(const EthernetLink&) = delete;

  EthernetWire& a_to_b() { return *ab_; }
  EthernetWire& b_to_a() { return *ba_; }

 private:
  std::unique_ptr<EthernetWire> ab_, ba_;
};

}  // namespace ibfsim
