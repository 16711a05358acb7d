#include "sim/ethernet/ethernet_port.h"

#include "sim/core/error.h"
#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/ethernet/ethernet_wire.h"

namespace ibfsim {

EthernetPort::EthernetPort(ScheduledModule& module, EthernetPortOwner& owner, PortNum number, std::string name)
    : module_(module), owner_(owner), number_(number), name_(std::move(name)) {}

void EthernetPort::connect(EthernetWire& out) {
  out_ = &out;
  rate_ = out.rate();
  clock_ = rate_.clock();
}

Time EthernetPort::transmit(Packet* p) {
  IBFSIM_CHECK(out_ != nullptr, name_ + ": frame sent on a port with no cable");
  IBFSIM_CHECK(!busy_, name_ + ": frame sent while the transmitter is busy");
  IBFSIM_CHECK(p->ethernet(), name_ + ": an InfiniBand packet sent on an Ethernet port");
  const std::uint64_t c = clock_.cycle_at_or_after(ScheduledModule::now());
  const std::uint64_t bytes = p->wire_bytes();
  const std::uint64_t edges = ethernet_wire_edges(bytes);
  busy_ = true;
  last_frame_bytes_ = bytes;
  ++stats_.tx_frames;
  stats_.tx_bytes += bytes;
  stats_.tx_busy += clock_.time_of(c + edges) - clock_.time_of(c);
  if (capture_) capture_->capture_frame(clock_.time_of(c + kEthernetPreambleBytes), *p, out_->link_id());
  // Everything about the frame the far end needs is read now: it owns the packet from its head on.
  out_->carry(p, c, bytes);
  module_.schedule<&EthernetPort::tx_done>(clock_.time_of(c + edges), this);
  return clock_.time_of(c);
}

void EthernetPort::tx_done() {
  busy_ = false;
  owner_.on_tx_done(*this);
}

void EthernetPort::head_arrives(Packet* p, Time tail) {
  ++stats_.rx_frames;
  stats_.rx_bytes += p->wire_bytes();
  owner_.on_frame_head(*this, p, ScheduledModule::now(), tail);
}

}  // namespace ibfsim
