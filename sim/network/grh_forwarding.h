// A router's forwarding state (IBA Vol1 ch. 19, routers), a pure table with no time and no SystemC:
// each port is an end port of the subnet behind it, with its own LID there; a packet addressed to
// a port's LID with a GRH (LNH 3) is routed by its destination GID: the DGID's 64-bit subnet prefix
// selects the route (the output port, and the next router's LID there when the destination subnet
// is further away), and the DGID's port GUID the destination's LID when its subnet is the output's.
//
// Leaving, the packet's LRH is rebuilt for the next subnet (rebuild): SLID the output port's LID,
// DLID the next hop's, LNH, SL and PktLen kept (the VL is the output's, as in a switch, from the
// router's SL-to-VL table); the GRH's HopLmt drops by one. The VCRC is then rewritten by the output
// stage; the ICRC stays valid, since it masks the LRH and HopLmt of a packet with a GRH (R12).
//
// Tables: set by the fabric's static router manager (fabric/router_manager.h) from the topology and
// the LIDs each subnet's SM assigns; the port LIDs by the router's SMA.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/packet.h"

namespace ibfsim {

struct GrhRoute {
  PortNum out = 0;
  Lid next_hop = 0;  // the next router's port LID behind `out`; 0: the destination is there
};

class GrhForwarding {
 public:
  explicit GrhForwarding(unsigned num_ports) : lid_(num_ports + 1, 0), lmc_(num_ports + 1, 0), hosts_(num_ports + 1) {}

  // Port p's LID and LMC in its subnet (PortInfo, set by the SM through the router's SMA).
  void set_port_lid(PortNum p, Lid lid, std::uint8_t lmc) {
    lid_.at(p) = lid;
    lmc_.at(p) = lmc;
  }
  Lid port_lid(PortNum p) const { return lid_.at(p); }
  std::uint8_t port_lmc(PortNum p) const { return lmc_.at(p); }
  bool is_own_lid(PortNum p, Lid dlid) const {
    const Lid l = lid_[p];
    return l != 0 && dlid >= l && static_cast<unsigned>(dlid - l) < (1u << lmc_[p]);
  }
  // The route to a subnet prefix, and the base LID of each end port (by port GUID) of the subnet
  // behind port p.
  void set_route(std::uint64_t prefix, GrhRoute r) { routes_[prefix] = r; }
  void set_host(PortNum p, Guid port_guid, Lid lid) { hosts_.at(p)[port_guid] = lid; }
  const std::unordered_map<std::uint64_t, GrhRoute>& routes() const { return routes_; }

  // Where a packet to this DGID goes: the output and the DLID it takes there; nullopt if no route
  // or (direct) no such port in the destination subnet.
  struct Hop {
    PortNum out;
    Lid dlid;
  };
  std::optional<Hop> next_hop(std::uint64_t dgid_prefix, Guid dgid_guid) const {
    const auto r = routes_.find(dgid_prefix);
    if (r == routes_.end()) return std::nullopt;
    if (r->second.next_hop != 0) return Hop{r->second.out, r->second.next_hop};
    const auto& hosts = hosts_[r->second.out];
    const auto h = hosts.find(dgid_guid);
    if (h == hosts.end()) return std::nullopt;
    return Hop{r->second.out, h->second};
  }

  // Rebuilds the LRH of `p` (which has a GRH and a route: next_hop succeeded) for output `out`;
  // true if a byte changed.
  bool rebuild(Packet& p, PortNum out) const;

 private:
  std::vector<Lid> lid_;
  std::vector<std::uint8_t> lmc_;
  std::unordered_map<std::uint64_t, GrhRoute> routes_;
  std::vector<std::unordered_map<Guid, Lid>> hosts_;  // [port]: port GUID -> base LID
};

}  // namespace ibfsim
