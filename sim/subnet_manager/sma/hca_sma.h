// An HCA's SMA on QP0 (IBA Vol1 14.3), attached to an Hca as its ManagementAgent: it answers the
// SMPs that reach a port (a directed route ending here, or the port's LID) and programs the HCA
// with what a Set changed: the port's LID and LMC, PortState (Init -> Armed -> Active),
// OperationalVLs, VLHighLimit and the VL arbitration tables, the SL->VL table, the P_Keys.
//
// On the SM's host it also carries the SM's traffic (sma_shell.h, send_from_sm): a directed route
// starts at this node, out of the port named first in the path (HopCount 0 is answered by this very
// SMA), and answers and traps for the SM are handed to its SmpReceiver.
#pragma once
#include <string>
#include <vector>

#include "sim/subnet_manager/sma/sma_shell.h"
#include "sim/subnet_manager/congestion_control/congestion_control_agent.h"
#include "sim/transport/hca.h"

namespace ibfsim {

struct HcaSmaConfig {
  Guid node_guid = 0;  // port p's GUID is node_guid + p (as ibsim and ConnectX number them)
  std::string description;
  SmaTiming timing;
  // Enabled speeds and widths per port 1..N (PortInfo encodings), index 0 unused; empty: all.
  std::vector<std::uint8_t> speeds, speeds_ext, widths;
};

class HcaSma : public SmaShell {
 public:
  HcaSma(Hca& hca, HcaSmaConfig config);

  Hca& hca() { return hca_; }
  bool sm_port_up(PortNum port) const override { return hca_.port(port).state() != PortState::kDown; }
  void on_port_state_change(PortNum port) override {
    if (sm_) sm_->on_port_state_change(port);
  }

 protected:
  void send_packet(PortNum port, Packet* p) override { hca_.send_management(port, p); }
  Lid own_lid(PortNum port) const override { return port >= 1 && port <= hca_.num_ports() ? hca_.lid(port) : 0; }
  PortNum lid_route(Lid, PortNum arrival) const override { return arrival; }
  void sync_port(PortNum p) override;
  void apply(const Smp& request, const SmaResult& result, PortNum arrival) override;
  // Congestion Control MADs (class 0x21) go to the CA's Congestion Control Agent (which sets the
  // HCA's throttle after a Set); answers go to the SM running here.
  std::optional<Mad> on_gmp(const ReceivedGmp& gmp, PortNum port) override;
  void send_gmp_packet(PortNum port, Packet* p) override { hca_.send_gsi(port, p); }
  std::uint8_t gmp_vl(PortNum port, std::uint8_t sl) const override { return hca_.sl_to_vl_table(port).vl(sl); }

 private:
  Hca& hca_;
};

}  // namespace ibfsim
