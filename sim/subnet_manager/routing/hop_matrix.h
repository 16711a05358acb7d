// Hop counts between switches as OpenSM's unicast manager keeps them (osm_switch_t hop tables):
// for switch s, target switch t and port p of s, the number of switch-to-switch hops to t when
// leaving s by p. Routing engines fill it (minhop: shortest paths; updn: paths that never go up
// after going down); the table builder (ucast_lft_builder.h) picks ports from it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <vector>

#include "sim/subnet_manager/routing/subnet_graph.h"

namespace ibfsim {

constexpr std::uint8_t kNoHops = 0xFF;  // OpenSM's OSM_NO_PATH

// The switches of a graph in OpenSM's switch GUID table order (ascending guid_table_order of the
// node GUID), numbered 0..count-1, and the way back from graph node indices.
struct SwitchIndex {
  std::vector<std::size_t> node;   // switch number -> graph node
  std::vector<std::size_t> of;     // graph node -> switch number (kNoSubnetNode for HCAs)

  explicit SwitchIndex(const SubnetGraph& g);
  std::size_t size() const { return node.size(); }
  bool is_switch(std::size_t graph_node) const { return of[graph_node] != kNoSubnetNode; }
};

class HopMatrix {
 public:
  // All entries kNoHops; ports 0..max_ports for every switch.
  HopMatrix(std::size_t switches, unsigned max_ports);

  std::uint8_t get(std::size_t s, std::size_t t, unsigned port) const { return data_[at(s, t) + port]; }
  void set(std::size_t s, std::size_t t, unsigned port, std::uint8_t hops) { data_[at(s, t) + port] = hops; }
  // The fewest hops from s to t over all ports, kNoHops if t is unreachable.
  std::uint8_t least(std::size_t s, std::size_t t) const;
  std::size_t switches() const { return switches_; }
  unsigned max_ports() const { return width_ - 1; }

 private:
  std::size_t at(std::size_t s, std::size_t t) const { return (s * switches_ + t) * width_; }
  std::size_t switches_;
  unsigned width_;
  std::vector<std::uint8_t> data_;
};

// The largest port number of any switch.
unsigned max_switch_ports(const SubnetGraph& g);

// Least hops between switches over switch-to-switch links ([s][t], kNoHops when unreachable),
// breadth-first from every switch.
std::vector<std::vector<std::uint8_t>> switch_distances(const SubnetGraph& g, const SwitchIndex& sw);

// minhop's matrix (osm_ucast_mgr_build_lid_matrices): port 0 of s has 0 hops to s itself; a port
// to a neighbour switch n has 1 + least hops from n to t; other ports none.
HopMatrix minhop_hop_matrix(const SubnetGraph& g, const SwitchIndex& sw);

}  // namespace ibfsim
