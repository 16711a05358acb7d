// What a switch's management port offers, before its management agent, each packet on a data VL
// addressed to the switch's own LID: the SHARP aggregation node of the switch
// (sim/transport/sharp/aggregation_node.h) takes those for its QP and leaves the rest (GMPs) to
// the agent. It lives in the transport layer, since it reads BTH and DETH through their codecs.
#pragma once
#include "sim/core/ids.h"
#include "sim/core/packet.h"

namespace ibfsim {

class AggregationAgent {
 public:
  virtual ~AggregationAgent() = default;
  // p arrived whole and good on `port` (its receive buffer is already free). Returns whether the
  // agent took it (it then owns p); false leaves p to the management agent.
  virtual bool take(Packet* p, PortNum port) = 0;
};

}  // namespace ibfsim
