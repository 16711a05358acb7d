// The fabric as the user described it: nodes (HCAs, switches) and the cables between their ports.
// This is plain data, independent of YAML and of SystemC; the fabric builder turns it into modules.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/ids.h"
#include "sim/core/time.h"
#include "sim/phy/link_speed.h"

namespace ibfsim {

enum class NodeType { kHca, kSwitch };

const char* node_type_name(NodeType t);  // "hca", "switch"

// Where a node or cable was declared, so that later checks can point the user at it.
// line == 0 means unknown (built in code); generated nodes carry the position of `generate`.
struct SourceMark {
  std::string file;
  int line = 0;    // 1-based
  int column = 0;  // 1-based

  // "FILE:LINE:COL", "FILE" without a line, "topology" without a file.
  std::string to_string() const;
};

// One end of a cable: a node index into Topology::nodes and a 1-based port number.
struct PortRef {
  std::size_t node = 0;
  unsigned port = 0;
};

// The largest port number a node may have: ports are 8-bit numbers and 255 marks "no route" in an
// LFT, so 254 (IBA switches have at most 254 external ports).
constexpr unsigned kMaxPorts = 254;

struct TopoNode {
  std::string name;                  // unique; no '/' or whitespace (cables say "name/port")
  NodeType type = NodeType::kHca;
  unsigned num_ports = 1;            // external ports 1..num_ports; a switch also has port 0
  Guid guid = 0;                     // node GUID, unique and nonzero
  Time switch_latency = 0;           // switch only: port-to-port forwarding latency
  std::uint32_t rx_buffer_credits = 0;  // receive buffer per data VL per port, in 64-byte blocks
  SourceMark mark;
};

struct TopoCable {
  std::size_t node_a = 0;
  unsigned port_a = 0;
  std::size_t node_b = 0;
  unsigned port_b = 0;
  LinkRate rate;                 // speed and width; both directions run at this rate
  std::uint32_t length_mm = 0;   // sets the propagation delay
  SourceMark mark;

  // The end of this cable that is not on `node` (cables never join a node to itself).
  PortRef far_end(std::size_t node) const;
};

// Settings used wherever a node or cable does not give its own (topology file `defaults:`).
struct TopologyDefaults {
  LinkRate link_rate;                        // 4x EDR
  std::uint32_t link_length_mm = 2000;
  // Unset means 36 for declared switches and exactly as many as needed for generated ones.
  std::optional<unsigned> switch_ports;
  Time switch_latency = 100 * kNs;
  std::uint32_t switch_buffer_credits = 128;
  unsigned hca_ports = 1;
  std::uint32_t hca_buffer_credits = 256;
  Time propagation_per_m = 5 * kNs;
};

// The default switch port count when neither the node nor the defaults give one.
constexpr unsigned kDefaultSwitchPorts = 36;

// The node GUID given to the node at `index` when the topology names none: the Mellanox OUI
// 00:02:c9 prefix 0x0002c90300000000 plus index + 1 (HCAs and switches alike, so GUIDs are unique
// and stable under edits that append nodes).
constexpr Guid kDefaultGuidBase = 0x0002c90300000000ull;
inline Guid default_guid(std::size_t index) { return kDefaultGuidBase + index + 1; }

struct Topology {
  std::string source_file;
  std::vector<TopoNode> nodes;
  std::vector<TopoCable> cables;
  Time propagation_per_m = 5 * kNs;  // signal delay per metre of cable

  // Linear search; build a map for repeated lookups in large fabrics.
  std::optional<std::size_t> find_node(std::string_view name) const;
  // The cable attached to (node, port), if any. Linear search; see port_cables() for bulk use.
  std::optional<std::size_t> cable_at(std::size_t node, unsigned port) const;
  // [node][port] -> cable index (ports 0..num_ports), built in one pass over the cables.
  // Requires a topology that passed validate_topology.
  std::vector<std::vector<std::optional<std::size_t>>> port_cables() const;
  // Indices of the HCAs / switches in declaration order.
  std::vector<std::size_t> hcas() const;
  std::vector<std::size_t> switches() const;
  // One-way signal delay of a cable: propagation_per_m * length, rounded to the nearest fs.
  Time cable_delay(std::size_t cable) const;
};

// Checks what the parser cannot check one value at a time: node names unique and well formed,
// GUIDs unique and nonzero, port counts 1..kMaxPorts, cable ends naming existing nodes and ports
// 1..num_ports (port 0 is a switch's management port and is never cabled), no port on two cables,
// no cable from a node to itself, every switch cabled at least once. Unconnected HCA ports are fine.
// Throws InputError "MARK: expected ..., got ..." pointing at the offending node or cable.
void validate_topology(const Topology& topo);

}  // namespace ibfsim
