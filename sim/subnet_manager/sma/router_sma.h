// A router's SMA (IBA Vol1 14.3, NodeType 3), attached to a Router as its ManagementAgent. To the
// subnet manager of each subnet a router port is an end port, as an HCA port is: it answers the
// SMPs that reach a port (a directed route ending there, or the port's LID; routers pass no SMP on
// between subnets), NodeInfo names the port they came in on, and a Set programs that port: its LID
// and LMC (the router's forwarding uses them: grh_forwarding.h), PortState, OperationalVLs, the VL
// arbitration tables, and the SL->VL table of traffic leaving by it (every input).
#pragma once
#include <string>

#include "sim/network/router.h"
#include "sim/subnet_manager/sma/sma_shell.h"

namespace ibfsim {

struct RouterSmaConfig {
  Guid node_guid = 0;  // port p's GUID is node_guid + p
  std::string description;
  SmaTiming timing;
};

class RouterSma : public SmaShell {
 public:
  RouterSma(Router& router, RouterSmaConfig config);

  Router& router() { return router_; }
  bool sm_port_up(PortNum port) const override { return router_.port(port).state() != PortState::kDown; }

 protected:
  void send_packet(PortNum port, Packet* p) override { router_.send_management(port, p); }
  Lid own_lid(PortNum port) const override {
    return port >= 1 && port <= router_.num_ports() ? router_.port_lid(port) : 0;
  }
  PortNum lid_route(Lid, PortNum arrival) const override { return arrival; }
  void sync_port(PortNum p) override;
  void apply(const Smp& request, const SmaResult& result, PortNum arrival) override;
  void send_gmp_packet(PortNum port, Packet* p) override { router_.send_gsi(port, p); }
  std::uint8_t gmp_vl(PortNum port, std::uint8_t sl) const override {
    return router_.sl_to_vl_table(port == 1 && router_.num_ports() > 1 ? 2 : 1, port).vl(sl);
  }

 private:
  Router& router_;
};

}  // namespace ibfsim
