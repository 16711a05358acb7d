// A subnet as the subnet manager knows it: the nodes it discovered, their ports and links, and the
// LIDs it gave them. Plain data, independent of SystemC and of sim/fabric, so that both paths
// fill the same type: in-band discovery (SMPs over the simulated fabric) and the offline
// `ibfsim routes --topology` path (sim/fabric/subnet_graph_from_topology.h). LID assignment
// (lid_assignment.h) writes the LID ranges; the routing engines read the whole graph.
//
// Node order carries no meaning: the algorithms order nodes and ports by GUID as OpenSM does
// (see guid_table_order below), so discovery may append nodes in any order.
#pragma once
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/ids.h"

namespace ibfsim {

// A router is an end node to a subnet, as a CA is (its ports reached one by one, never crossed):
// only the dumps name it apart.
enum class SubnetNodeKind { kCa, kSwitch, kRouter };

constexpr std::size_t kNoSubnetNode = std::numeric_limits<std::size_t>::max();

// A port of a node in the graph: an index into SubnetGraph::nodes and a port number (0 is a
// switch's management port).
struct SubnetPortRef {
  std::size_t node = kNoSubnetNode;
  PortNum port = 0;

  bool valid() const { return node != kNoSubnetNode; }
  friend bool operator==(const SubnetPortRef& a, const SubnetPortRef& b) { return a.node == b.node && a.port == b.port; }
  friend bool operator!=(const SubnetPortRef& a, const SubnetPortRef& b) { return !(a == b); }
};

// The LIDs of a port, first..last inclusive; first == 0 means none assigned yet. An HCA port has
// 2^LMC LIDs aligned to 2^LMC; a switch has one LID, on port 0 (OpenSM's lmc_esp0 FALSE).
struct LidRange {
  Lid first = 0;
  Lid last = 0;

  bool assigned() const { return first != 0; }
  unsigned count() const { return assigned() ? static_cast<unsigned>(last - first) + 1 : 0; }
  bool contains(Lid lid) const { return assigned() && lid >= first && lid <= last; }
};

struct SubnetPort {
  // The port GUID. An HCA port has its own; a switch has one port GUID, held by port 0 (external
  // switch ports 1..N have none of their own: 0 here; use SubnetGraph::port_guid).
  Guid guid = 0;
  // The port at the other end of the link, when the link is up (physical state LinkUp); never
  // set on switch port 0. Links are symmetric: peer's peer is this port.
  std::optional<SubnetPortRef> peer;
  // Assigned LIDs (HCA ports and switch port 0 only).
  LidRange lids;
  // Operational data VLs (PortInfo.OperationalVLs as a count: 1, 2, 4, 8 or 15); the
  // deadlock-free engine may only use VLs every port on a path has.
  unsigned data_vls = 8;
};

struct SubnetNode {
  SubnetNodeKind kind = SubnetNodeKind::kCa;
  Guid node_guid = 0;
  Guid system_image_guid = 0;  // 0 when unknown; OpenSM's LMC path spreading looks at it
  std::string description;     // NodeDescription; OpenSM prints it as the node's name
  // Indexed 0..num_ports. An HCA's entry 0 is unused (default-constructed).
  std::vector<SubnetPort> ports;

  unsigned num_ports() const { return ports.empty() ? 0 : static_cast<unsigned>(ports.size() - 1); }
  bool is_switch() const { return kind == SubnetNodeKind::kSwitch; }
};

struct SubnetGraph {
  std::vector<SubnetNode> nodes;
  // The port the SM runs on (an HCA port, or a switch's management port 0); LID assignment gives
  // it the first LID range.
  SubnetPortRef sm_port;
  // The subnet's LID mask control, 0..7 (set by LID assignment).
  unsigned lmc = 0;

  const SubnetPort& port(SubnetPortRef r) const { return nodes.at(r.node).ports.at(r.port); }
  SubnetPort& port(SubnetPortRef r) { return nodes.at(r.node).ports.at(r.port); }
  // The GUID of the port (for a switch, of port 0 whichever port is named).
  Guid port_guid(SubnetPortRef r) const;
  // The port that owns the LIDs of (node, port): a switch's port 0, the HCA port itself.
  SubnetPortRef lid_port(SubnetPortRef r) const;
  // Linear searches; build maps for repeated lookups in large fabrics.
  std::optional<std::size_t> find_node_by_guid(Guid node_guid) const;
  std::optional<std::size_t> find_node(std::string_view description) const;
  // Indices of the switches / HCAs in graph order.
  std::vector<std::size_t> switches() const;
  std::vector<std::size_t> cas() const;
  // The highest LID assigned to any port (0 if none).
  Lid max_lid() const;
  // Whether the SM reaches anything: its HCA port has a link, or its switch has one.
  bool sm_linked() const;
};

// OpenSM keeps its node, switch and port tables in maps keyed by the GUID in network byte order,
// compared as host integers; on a little-endian host (every run of the golden data) that orders
// GUIDs by their byte-reversed value: the last byte first. Sort by this key to walk a table in
// OpenSM's order.
constexpr std::uint64_t guid_table_order(Guid guid) {
  std::uint64_t r = 0;
  for (int i = 0; i < 8; ++i) r = (r << 8) | ((guid >> (8 * i)) & 0xFF);
  return r;
}

// Checks the graph's invariants (IBFSIM_CHECK, a SimError when broken: the graph is built by
// code, not read from the user): port vectors sized 1..255, links symmetric and between existing
// ports other than a switch's port 0, the SM port an HCA port with a peer or a switch's port 0, node
// GUIDs nonzero and
// unique, port GUIDs (HCA ports, switch port 0) nonzero and unique.
void check_subnet_graph(const SubnetGraph& g);

}  // namespace ibfsim
