// Management port 0 of a switch: the switch's own port towards its ManagementAgent (its SMA). A
// packet the routing unit sends here (routing_unit.h: an SMP to the permissive LID or the
// switch's LID, a GMP to its LID) is taken whole, at its tail, once the link layer found it good:
// its receive buffer is freed and the agent gets it (without an agent it is dropped, kNoQp). The
// agent sends SMPs out of any port with send_management, and a management packet goes before the
// VL15 packets of the inputs (port_output.h); it sends GMPs with send_gsi. The SMA programs the
// switch through the Switch's setters (LID, LFT, MTU, HOQLife, LifeTimeValue, SL->VL, VL
// arbitration), which take effect for the next packet.
#pragma once
#include <string>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/network/aggregation_agent.h"
#include "sim/network/management_agent.h"

namespace ibfsim {

class Switch;

class ManagementPort {
 public:
  explicit ManagementPort(Switch& sw) : sw_(sw) {}
  std::string name() const;  // event traces

  void set_agent(ManagementAgent* agent) { agent_ = agent; }
  // The switch's SHARP aggregation node: offered data-VL packets before the agent.
  void set_aggregation_agent(AggregationAgent* agent) { aggregation_ = agent; }
  // Sends an SMP (a VL15 packet, counted by the agent as created) out of port `out`; on a port
  // that is down or not cabled it is dropped and counted.
  void send_management(PortNum out, Packet* p);
  // Sends a GMP (QP1) out of `out` on the data VL in its LRH, ahead of the crossbar's packets once
  // that VL has credits; dropped and counted like an SMP on a port that cannot send.
  void send_gsi(PortNum out, Packet* p);
  // The physical link of `port` came up or went down: the agent raises its trap.
  void port_state_changed(PortNum port) {
    if (agent_) agent_->on_port_state_change(port);
  }

  // --- events (event.h) ---
  // Where a packet for the management port came in.
  struct Arrival {
    PortNum in;
    bool check;  // its tail needs the link layer's verdict
  };
  // An SMP (or a GMP to the switch's LID) is in whole.
  void packet_arrives(Packet* p, Arrival a);

 private:
  // Whether port `out` can send the agent's packet now; if not, the packet is dropped and counted.
  bool sendable(PortNum out, Packet* p);

  Switch& sw_;
  ManagementAgent* agent_ = nullptr;
  AggregationAgent* aggregation_ = nullptr;
};

}  // namespace ibfsim
