// QP0 and QP1 of an HCA (IBA Vol1 ch. 13-14): the packets of its management agent (the SMA, and
// on the SM's host the SM). Out: SMPs (VL15) and GMPs (QP1, on the data VL in their LRH) go
// through each port's output stage ahead of data packets (port_output.h). In: a VL15 packet whose
// DLID is the permissive LID or one of the port's LIDs, and a GMP to QP1 of the port, go to the
// agent; an SMP for QP0 on any other VL never gets here (the receive engine discards it, R2).
#pragma once
#include <cstdint>
#include <optional>

#include "sim/core/ids.h"
#include "sim/core/packet.h"
#include "sim/core/packet_ledger.h"
#include "sim/link/lrh.h"
#include "sim/network/management_agent.h"
#include "sim/transport/bth.h"

namespace ibfsim {

class Hca;

class HcaManagement {
 public:
  explicit HcaManagement(Hca& hca) : hca_(hca) {}

  void set_agent(ManagementAgent* agent) { agent_ = agent; }
  // Hca::send_management: an SMP out of port n; dropped and counted on a port that is down or
  // not cabled.
  void send_smp(PortNum n, Packet* p);
  // Hca::send_gsi: a GMP out of port n, the same way.
  void send_gmp(PortNum n, Packet* p);
  // The physical link of port n came up or went down: the agent is told.
  void on_port_state_change(PortNum n) {
    if (agent_) agent_->on_port_state_change(n);
  }

  // QP0: an SMP whose tail is in on port n, its LRH checked, addressed to `dlid`. Returns why it
  // is discarded (not for this port, or no agent), or nullopt: the agent took it.
  std::optional<DropReason> take_smp(PortNum n, Packet* p, Lid dlid);
  // QP1: if p (LRH `lrh`, checked with its ICRC) is a GMP for this port's GSI, the agent takes it
  // (and checks its Q_Key and MAD) and this returns true. Inline: every data packet asks.
  bool take_gmp(PortNum n, Packet* p, const Lrh& lrh, bool multicast) {
    if (!agent_ || multicast || lrh.lnh != kLnhIbaLocal || p->header_len < kLrhBytes + kBthBytes ||
        bth_dest_qp(p->header.data() + kLrhBytes) != 1)
      return false;
    give_gmp(n, p, lrh.vl);
    return true;
  }

 private:
  void give_gmp(PortNum n, Packet* p, std::uint8_t vl);
  // Whether port n can carry the agent's packets now; if not, p is dropped and counted.
  bool port_takes(PortNum n, Packet* p);

  Hca& hca_;
  ManagementAgent* agent_ = nullptr;
};

}  // namespace ibfsim
