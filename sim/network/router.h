// An InfiniBand router (IBA Vol1 ch. 19): it joins subnets, each of its ports an end port of the
// subnet behind it with a LID of its own, and forwards between them by the GRH's destination GID.
// It is made of the switch's blocks (switch.h: input units with their cut-through rule and
// lifetimes, output units and their arbiters, the management port towards its SMA) with the
// forwarding decision taken on the GRH (routing_unit.h, router mode) and the LRH rebuilt for the
// next subnet as the packet leaves (grh_forwarding.h): a router is a switch whose routing unit looks
// at the GRH. Port-to-port latency and buffers as a switch's (SwitchConfig).
#pragma once
#include "sim/network/grh_forwarding.h"
#include "sim/network/switch.h"

namespace ibfsim {

class Router : public Switch {
 public:
  Router(const sc_core::sc_module_name& name, SwitchConfig config, PacketPool& pool, PacketLedger& ledger)
      : Switch(name, std::move(config), pool, ledger), grh_(num_ports()) {
    routing_unit().set_grh_forwarding(&grh_);
  }

  // Port p's LID and LMC (PortInfo: each router port has its own, set by its subnet's SM).
  void set_port_lid(PortNum p, Lid lid, std::uint8_t lmc = 0) { grh_.set_port_lid(p, lid, lmc); }
  Lid port_lid(PortNum p) const { return grh_.port_lid(p); }
  std::uint8_t port_lmc(PortNum p) const { return grh_.port_lmc(p); }
  // The routing tables (the static router manager fills them).
  GrhForwarding& forwarding() { return grh_; }
  const GrhForwarding& forwarding() const { return grh_; }

 private:
  GrhForwarding grh_;
};

}  // namespace ibfsim
