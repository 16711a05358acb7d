// An Ethernet L3 fabric as plain data, from a generator: its switches and hosts, their ports and
// cables, every address (a MAC per port, an IPv4 address per host) and every switch's routes. The
// modules of such a fabric (EthernetSwitch, its hosts' ports, EthernetLinks) are built from it.
//
// Addressing. Switch s (1-based, in node order) port p has MAC 02:00:01:00:s:p; host h of switch s
// (its access switch, the leaf) has MAC 02:00:00:00:s:h and IP 10.0.s.h; the hosts of one leaf
// form the subnet 10.0.s.0/24, whose gateway is the leaf (the host's frames go to the MAC of the
// leaf port it is cabled to). All MACs are locally administered; at most 250 switches and 250
// hosts per switch. Routes: a leaf has a host route (/32) per host of its own and one route per
// other leaf's /24, to every port on a shortest path toward it (several: ECMP). ECMP seeds come
// from the run's seed, one stream per switch (kEcmpSeedStream + switch number).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/time.h"
#include "sim/ethernet/ethernet_header.h"
#include "sim/ethernet/ip_address.h"
#include "sim/ethernet/route_table.h"
#include "sim/phy/ethernet_speed.h"

namespace ibfsim {

constexpr std::uint64_t kEcmpSeedStream = std::uint64_t{0x4543} << 48;  // "EC"

struct EthernetNodePlan {
  std::string name;
  bool is_switch = false;
  std::vector<MacAddress> port_macs;       // [port-1]
  std::vector<MacAddress> neighbour_macs;  // [port-1]: the far end's MAC (all MACs zero: not cabled)
  // A switch's.
  RouteTable routes;
  std::uint32_t ecmp_seed = 0;
  // A host's (one port).
  IpAddress ip;
  MacAddress gateway_mac{};  // its leaf's port: the destination MAC of every frame it sends
  unsigned num_ports() const { return static_cast<unsigned>(port_macs.size()); }
};

// What a cable says of itself (a topology's Ethernet cable, fabric/ethernet_topology.h); unset: the
// fabric's one rate and propagation (RoceHcaFabricOptions).
struct EthernetCableOwn {
  std::optional<EthernetRate> rate;
  std::optional<Time> propagation;  // one way
};

struct EthernetCablePlan {
  std::size_t a = 0;  // node index
  PortNum a_port = 0;
  std::size_t b = 0;
  PortNum b_port = 0;
  EthernetCableOwn own;
};

// The cable's rate: its own, else the fabric's.
inline EthernetRate cable_rate(const EthernetCablePlan& c, const EthernetRate& fabric) {
  return c.own.rate.value_or(fabric);
}
// The cable's propagation in edges of its own byte clock (`rate`, cable_rate): its own time to the
// nearest edge (a half rounds up), else `fabric_edges`.
std::uint64_t cable_propagation_edges(const EthernetCablePlan& c, const EthernetRate& rate, std::uint64_t fabric_edges);
// `t` to the nearest edge of the rate's byte clock (a half rounds up).
std::uint64_t nearest_edges(Time t, const EthernetRate& rate);

struct EthernetFabricPlan {
  std::vector<EthernetNodePlan> nodes;  // switches first, then the hosts of switch 1, 2, ...
  std::vector<EthernetCablePlan> cables;
  std::vector<std::size_t> hosts() const;
  std::vector<std::size_t> switches() const;
  // The node index of the node named `name`, or nodes.size().
  std::size_t find(const std::string& name) const;
};

// Any fabric of L3 switches with one-port hosts, as a topology gives it (fabric/ethernet_topology.h):
// switch s (0-based here) is switch s + 1 of the addressing above, and a host on port p of switch
// s + 1 gets the MAC 02:00:00:00:(s+1):p and the IP 10.0.(s+1).p. Routes as above: shortest paths
// between switches, every equal-cost next hop in the ECMP group.
struct EthernetShape {
  struct Switch {
    std::string name;
    unsigned ports = 0;  // 1 to 250
  };
  struct Host {
    std::string name;
    std::size_t switch_index = 0;
    PortNum port = 0;  // on the switch
    EthernetCableOwn cable;  // its cable's own rate and propagation
  };
  struct Link {  // between two switches
    std::size_t a = 0;
    PortNum a_port = 0;
    std::size_t b = 0;
    PortNum b_port = 0;
    EthernetCableOwn cable;
  };
  std::vector<Switch> switches;  // at most 250
  std::vector<Host> hosts;
  std::vector<Link> links;
};
EthernetFabricPlan ethernet_plan(const EthernetShape& shape, std::uint64_t seed);

// `leaves` leaf switches (leaf1..), each with `hosts_per_leaf` hosts (h<leaf>_<i>, ports 1..n) and
// one cable to each of `spines` spine switches (spine1..: leaf port n + s; spine port l: leaf l).
EthernetFabricPlan ethernet_leaf_spine(unsigned leaves, unsigned spines, unsigned hosts_per_leaf, std::uint64_t seed);
// `switches` switches in a line (sw1..), each with `hosts_per_switch` hosts (ports 1..n), port n+1
// toward the previous switch and n+2 toward the next (where there is one).
EthernetFabricPlan ethernet_line(unsigned switches, unsigned hosts_per_switch, std::uint64_t seed);

}  // namespace ibfsim
