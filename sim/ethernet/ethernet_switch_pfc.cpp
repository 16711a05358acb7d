// The EthernetSwitch's PFC (IEEE 802.1Qbb): the buffer's admission and release through
// PfcIngress (pfc_ingress.h), the XOFF and XON its ingress ports send, and their refresh.
#include <fmt/format.h>

#include "sim/core/error.h"
#include "sim/ethernet/ethernet_switch.h"
#include "sim/ethernet/ethernet_wire.h"

namespace ibfsim {

PfcHeadroom EthernetSwitch::pfc_headroom(PortNum n) const {
  const EthernetPort& p = *ports_.at(n - 1);
  const EthernetWire* w = p.wire();
  IBFSIM_CHECK(w != nullptr, fmt::format("{}: PFC headroom of port {}, which has no cable", name(), n));
  PfcHeadroomInputs in;
  in.rate = w->rate();
  in.cable_propagation = w->prop_edges() * w->rate().info().byte_period_fs;
  in.phy_edges = w->fec().on() ? w->fec().codeword_edges + w->fec().decoder_edges : 0;
  in.mtu_frame_bytes = config_.pfc.mtu_frame_bytes;
  in.response_time = config_.pfc.response_time;
  return ibfsim::pfc_headroom(in);
}

std::uint64_t EthernetSwitch::pfc_headroom_bytes(PortNum n) const {
  if (config_.pfc.headroom_bytes) return config_.pfc.headroom_bytes;
  return ports_.at(n - 1)->connected() ? pfc_headroom(n).total() : 0;
}

PfcIngress::Admission EthernetSwitch::pfc_admit(EthernetPort& in, std::uint8_t prio, std::uint64_t bytes) {
  if (!pfc_.configured()) {  // the first frame: every cable is in place by now
    std::vector<std::uint64_t> headroom(num_ports());
    for (PortNum n = 1; n <= num_ports(); ++n) headroom[n - 1] = config_.pfc.lossless ? pfc_headroom_bytes(n) : 0;
    pfc_.configure(config_.pfc, config_.buffer_bytes, headroom);
    pfc_generation_.assign(num_ports() * kPfcClasses, 0);
  }
  const PfcIngress::Admission a = pfc_.admit(in.number(), prio, bytes);
  IBFSIM_CHECK(!a.lossless_overflow,
               fmt::format("{}: a frame of lossless priority {} from port {} found its headroom ({} bytes) full: "
                           "PFC's headroom is too small",
                           name(), prio, in.number(), pfc_headroom_bytes(in.number())));
  if (a.signal == PfcIngress::Signal::kXoff) pfc_signal(in.number(), prio, true);
  return a;
}

void EthernetSwitch::pfc_left(PortNum out, std::uint64_t bytes) {
  const PfcIngress::Release r = pfc_.left(out, bytes);
  if (r.signal == PfcIngress::Signal::kXon) pfc_signal(r.in, r.prio, false);
}

void EthernetSwitch::pfc_signal(PortNum in, std::uint8_t prio, bool xoff) {
  EthernetPort& p = port(in);
  const std::uint16_t quanta = xoff ? config_.pfc.pause_quanta : 0;
  p.send_pause(config_.port_macs[in - 1], prio, quanta);
  std::uint32_t& gen = pfc_generation_[(in - 1) * kPfcClasses + prio];
  ++gen;  // an XON makes the refresh of the XOFF before it stale
  if (xoff) schedule<&EthernetSwitch::pfc_refresh>(now() + pause_quanta_time(p.rate(), quanta) / 2, this, in, prio, gen);
}

void EthernetSwitch::pfc_refresh(PortNum in, std::uint8_t prio, std::uint32_t generation) {
  if (generation != pfc_generation_[(in - 1) * kPfcClasses + prio] || !pfc_.xoff(in, prio)) return;
  pfc_signal(in, prio, true);
}

}  // namespace ibfsim
