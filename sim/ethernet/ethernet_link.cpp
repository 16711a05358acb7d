#include "sim/ethernet/ethernet_link.h"

namespace ibfsim {

EthernetLink::EthernetLink(EthernetPort& a, ScheduledModule& a_module, EthernetPort& b, ScheduledModule& b_module,
                           const EthernetRate& rate, std::uint64_t prop_edges, Time decoder_latency,
                           std::uint32_t id_ab, std::uint32_t id_ba)
    : ab_(std::make_unique<EthernetWire>(b, b_module, rate, prop_edges, decoder_latency, id_ab)),
      ba_(std::make_unique<EthernetWire>(a, a_module, rate, prop_edges, decoder_latency, id_ba)) {
  a.connect(*ab_);
  b.connect(*ba_);
}

}  // namespace ibfsim
