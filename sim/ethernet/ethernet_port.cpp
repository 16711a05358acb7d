#include "sim/ethernet/ethernet_port.h"

#include "sim/core/error.h"
#include "sim/ethernet/ethernet_frame_timing.h"
#include "sim/ethernet/ethernet_wire.h"
#include "sim/ethernet/pfc_frame.h"

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
  last_frame_bytes_ = p->wire_bytes();
  return start_frame(p);
}

Time EthernetPort::start_frame(Packet* p) {
  const std::uint64_t c = clock_.cycle_at_or_after(ScheduledModule::now());
  const std::uint64_t bytes = p->wire_bytes();
  const std::uint64_t edges = ethernet_wire_edges(bytes);
  busy_ = true;
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
  const bool owners = !sending_control_;
  sending_control_ = false;
  if (pfc_.pending()) start_pause_frame();  // ahead of the owner's next frame
  if (owners) owner_.on_tx_done(*this);
  else if (!busy_) owner_.on_tx_ready(*this);
}

void EthernetPort::send_pause(const MacAddress& src, unsigned prio, std::uint16_t quanta) {
  IBFSIM_CHECK(out_ != nullptr && pool_ != nullptr, name_ + ": PFC frame sent on a port with no cable or pool");
  pause_src_ = src;
  pfc_.request(prio, quanta);
  if (!busy_) start_pause_frame();
}

void EthernetPort::start_pause_frame() {
  Packet* p = pool_->acquire();
  build_pfc_packet(*p, pfc_.take(pause_src_));
  sending_control_ = true;
  start_frame(p);
}

void EthernetPort::head_arrives(Packet* p, Time tail) {
  ++stats_.rx_frames;
  stats_.rx_bytes += p->wire_bytes();
  if (is_mac_control_frame(p->header.data(), p->header_len)) {
    // The MAC acts on a control frame once it has all of it and its FCS is good.
    module_.schedule<&EthernetPort::control_frame_tail>(tail, this, p);
    return;
  }
  owner_.on_frame_head(*this, p, ScheduledModule::now(), tail);
}

void EthernetPort::control_frame_tail(Packet* p) {
  IBFSIM_CHECK(pool_ != nullptr, name_ + ": a MAC control frame arrived at a port with no packet pool");
  p->write_frame(scratch_);
  pool_->release(p);
  const ParsedPfcFrame f = parse_pfc_frame(scratch_.data(), scratch_.size());
  if (!f.ok()) {
    pfc_.other_control_frame();
    return;
  }
  const Time now = ScheduledModule::now();
  std::uint8_t was_paused = 0;
  for (unsigned prio = 0; prio < kPfcClasses; ++prio)
    if (pfc_.paused(prio, now)) was_paused = static_cast<std::uint8_t>(was_paused | 1u << prio);
  pfc_.receive(f.frame, now, rate_);
  bool resumed = false;
  for (unsigned prio = 0; prio < kPfcClasses; ++prio) {
    if (!f.frame.enabled(prio)) continue;
    if (pfc_.paused(prio, now)) {
      module_.schedule<&EthernetPort::pause_expires>(pfc_.paused_until(prio), this, static_cast<std::uint8_t>(prio));
      if (!(was_paused >> prio & 1)) owner_.on_paused(*this, prio);
    } else
      resumed = true;
  }
  if (resumed && !busy_) owner_.on_tx_ready(*this);
}

void EthernetPort::pause_expires(std::uint8_t prio) {
  // Only the latest pause's own expiry: a refresh or an XON since made this one stale.
  if (pfc_.paused_until(prio) != ScheduledModule::now()) return;
  if (!busy_) owner_.on_tx_ready(*this);
}

}  // namespace ibfsim
