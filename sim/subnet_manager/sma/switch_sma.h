// A switch's SMA (IBA Vol1 14.3): its management port 0, attached to a Switch as its
// ManagementAgent. It answers SMPs to the switch's LID or on the permissive LID when a directed
// route ends here, passes directed-route SMPs on along their path (DR SMPs with DLID 0xFFFF go
// through the management port at every switch they cross), and programs the switch with what a
// Set changed: the LID (PortInfo of port 0), the LFT and LinearFDBTop, the MFT, per-port
// NeighborMTU, HOQLife, OperationalVLs, PortState (Init -> Armed -> Active), VLHighLimit and the
// VL arbitration tables, the SL->VL tables, LifeTimeValue, and adaptive routing (its settings, AR
// groups and AR LFT: mad/adaptive_routing.h).
//
// Trap 128: when a port's link comes up or goes down the SMA sets SwitchInfo.PortStateChange and,
// once it knows an SM (PortInfo.MasterSMLID of port 0) and has a LID of its own, sends a Trap(Notice
// 128) by LID to the SM, again every `trap_repeat` until the SM answers with TrapRepress (at most
// `trap_repeats` times). A port state change while a trap is outstanding needs no second trap.
//
// A subnet manager may run on the switch, on its management port 0 (managed switches do this):
// its SMPs start here (sma_shell.h, send_from_sm), answers come back to port 0, and the switch's
// own port changes reach it directly, without a trap. Its GMPs to the switch itself (the switch's
// Congestion Control Agent) are answered by this SMA after `timing.process`, never leaving the node.
#pragma once
#include <deque>
#include <string>

#include "sim/network/switch.h"
#include "sim/subnet_manager/sma/sma_shell.h"
#include "sim/subnet_manager/congestion_control/congestion_control_agent.h"

namespace ibfsim {

struct SwitchSmaConfig {
  Guid node_guid = 0;
  std::string description;
  SmaTiming timing;
  Time trap_repeat = 100 * kUs;
  unsigned trap_repeats = 8;
  // Enabled speeds (PortInfo LinkSpeedEnabled / LinkSpeedExtEnabled) and widths per port 1..N,
  // index 0 unused; empty: every speed and width.
  std::vector<std::uint8_t> speeds, speeds_ext, widths;
};

class SwitchSma : public SmaShell {
 public:
  // Attaches itself to `sw` as its management agent; the state starts as the switch is configured.
  SwitchSma(Switch& sw, SwitchSmaConfig config);

  void on_port_state_change(PortNum port) override;
  // Event (event.h): trap `tid` is due (again), unless the SM repressed it.
  void trap_due(std::uint64_t tid);
  bool sm_port_up(PortNum port) const override;
  void send_gmp_from_sm(const Mad& mad, PortNum port, Lid dlid, std::uint8_t sl) override;
  // Event (event.h): the answer to the oldest of the SM's GMPs to this switch itself is ready.
  void local_gmp_answered();
  bool trap_outstanding() const { return trap_tid_ != 0; }

 protected:
  void send_packet(PortNum port, Packet* p) override { sw_.send_management(port, p); }
  Lid own_lid(PortNum) const override { return sw_.lid(); }
  PortNum lid_route(Lid dlid, PortNum arrival) const override;
  void sync_port(PortNum p) override;
  void apply(const Smp& request, const SmaResult& result, PortNum arrival) override;
  void on_trap_repress(const Smp& smp) override;
  // Congestion Control MADs (class 0x21) go to the switch's Congestion Control Agent, which
  // reprograms the switch after a Set; other classes are not answered; answers go to the SM running
  // here.
  std::optional<Mad> on_gmp(const ReceivedGmp& gmp, PortNum port) override;
  void send_gmp_packet(PortNum port, Packet* p) override { sw_.send_gsi(port, p); }
  std::uint8_t gmp_vl(PortNum port, std::uint8_t sl) const override { return sw_.sl_to_vl_table(port, port).vl(sl); }

 private:
  void send_trap();

  Switch& sw_;
  SwitchSmaConfig config_;
  std::deque<ReceivedGmp> local_answers_;  // answers to the SM's GMPs to this switch, oldest first
  std::uint64_t trap_tid_ = 0;     // outstanding trap (0: none)
  unsigned trap_sends_ = 0;
  std::uint64_t next_tid_ = 1;
};

}  // namespace ibfsim
