// The management side of a node (IBA Vol1 ch. 14, the SMI on QP0): what a Switch or an Hca hands
// the SMPs addressed to it. A switch's management port 0 and an HCA's QP0 receive the VL15 packets
// whose DLID is the permissive LID (directed route) or one of the node's own LIDs; the agent
// (the SMA of sim/subnet_manager, and on the SM's host the SM) decodes and answers them and sends
// its own SMPs back through Switch::send_management / Hca::send_management.
#pragma once
#include "sim/core/ids.h"
#include "sim/core/packet.h"

namespace ibfsim {

class ManagementAgent {
 public:
  virtual ~ManagementAgent() = default;
  // An SMP addressed to this node has arrived whole on `port` (its tail is in, the link layer
  // found it good, and its receive buffer is already free). The agent owns `p` from now on: it
  // sends it on, or releases it to the packet pool and counts it in the ledger.
  virtual void on_management_packet(Packet* p, PortNum port) = 0;
  // The physical link of `port` came up (the port is in Init) or went down.
  virtual void on_port_state_change(PortNum /*port*/) {}
};

}  // namespace ibfsim
