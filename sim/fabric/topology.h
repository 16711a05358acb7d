// The fabric as the user described it: nodes (HCAs, switches, routers) and the cables between their
// ports. Routers join subnets (topology_subnets.h): each of their ports is an end port of the
// subnet it is cabled into, as an HCA port is.
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
#include "sim/phy/ethernet_speed.h"
#include "sim/phy/link_speed.h"

namespace ibfsim {

enum class NodeType { kHca, kSwitch, kRouter };

const char* node_type_name(NodeType t);  // "hca", "switch", "router"

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

// ---- Enabled link speeds and widths of a port ----
//
// A SpeedSet has bit static_cast<int>(LinkSpeed) set for each enabled speed, which lines up with
// PortInfo (IBA Vol1 14.2.5.6): bits 0..2 (SDR, DDR, QDR) are LinkSpeedEnabled's bits 1, 2, 4; bits
// 4..7 (FDR, EDR, HDR, NDR) shifted down by 4 are LinkSpeedExtEnabled's bits 1, 2, 4, 8; bit 3 is
// FDR10, which is Mellanox-only (a vendor MAD, not PortInfo); bit 8 is XDR, which PortInfo carries
// in fields OpenSM 3.3 does not know (LinkSpeedExt2, not modelled: an XDR port's PortInfo shows no
// extended speed).
// A WidthSet is PortInfo's LinkWidthEnabled encoding itself: 1 = 1x, 2 = 4x, 4 = 8x, 8 = 12x, 16 = 2x.
using SpeedSet = std::uint16_t;
using WidthSet = std::uint8_t;
constexpr SpeedSet kAllSpeeds = 0x1FF;  // SDR..XDR
constexpr WidthSet kAllWidths = 0x1F;  // 1x, 2x, 4x, 8x, 12x

constexpr SpeedSet speed_bit(LinkSpeed s) { return static_cast<SpeedSet>(1u << static_cast<unsigned>(s)); }
// 0 for a lane count that is not a link width.
constexpr WidthSet width_bit(unsigned lanes) {
  return static_cast<WidthSet>(lanes == 1 ? 1 : lanes == 2 ? 16 : lanes == 4 ? 2 : lanes == 8 ? 4 : lanes == 12 ? 8 : 0);
}
constexpr std::uint8_t portinfo_link_speed_enabled(SpeedSet s) { return static_cast<std::uint8_t>(s & 0x07); }
constexpr std::uint8_t portinfo_link_speed_ext_enabled(SpeedSet s) { return static_cast<std::uint8_t>((s >> 4) & 0x0F); }
// PortInfo.OperationalVLs / VLCap code for a number of data VLs: 1 -> 1, 2 -> 2, 4 -> 3, 8 -> 4,
// 15 -> 5; 0 for any other number.
constexpr unsigned portinfo_vl_code(unsigned data_vls) {
  return data_vls == 1 ? 1 : data_vls == 2 ? 2 : data_vls == 4 ? 3 : data_vls == 8 ? 4 : data_vls == 15 ? 5 : 0;
}

// The fastest speed / widest width in a set; nullopt for an empty set.
std::optional<LinkSpeed> best_speed(SpeedSet s);
std::optional<unsigned> best_width(WidthSet w);  // in lanes
// "EDR, HDR" / "4x, 12x", slowest / narrowest first; "none" for an empty set.
std::string speed_set_names(SpeedSet s);
std::string width_set_names(WidthSet w);

// Operational data VLs a port may have (PortInfo.OperationalVLs): VL0, VL0-1, VL0-3, VL0-7, VL0-14.
constexpr unsigned kDefaultDataVls = 8;
bool is_valid_data_vl_count(unsigned vls);  // 1, 2, 4, 8 or 15
// Management VL (VL15) receive buffer: a port must hold at least one maximal SMP, 290 bytes
// (LRH 8 + BTH 12 + DETH 8 + MAD 256 + ICRC 4 + VCRC 2) = 5 blocks of 64 bytes.
constexpr std::uint32_t kDefaultVl15Credits = 10;
constexpr std::uint32_t kMinVl15Credits = 5;

// What a switch is, as its topology entry says (`kind:`); unstated fits either fabric, a stated
// kind must agree with the scenario's `fabric:` (checked where the scenario is read).
enum class SwitchKind : std::uint8_t { kUnstated, kInfiniband, kEthernet };
const char* switch_kind_name(SwitchKind k);  // "", "infiniband", "ethernet"

struct TopoNode {
  std::string name;                  // unique; no '/' or whitespace (cables say "name/port")
  NodeType type = NodeType::kHca;
  unsigned num_ports = 1;            // external ports 1..num_ports; a switch also has port 0
  Guid guid = 0;                     // node GUID, unique and nonzero
  Time switch_latency = 0;           // switch and router: port-to-port forwarding latency
  std::uint32_t rx_buffer_credits = 0;  // receive buffer per data VL per port, in 64-byte blocks
  unsigned op_vls = kDefaultDataVls;    // operational data VLs: 1, 2, 4, 8 or 15
  std::uint32_t vl15_buffer_credits = kDefaultVl15Credits;  // VL15 receive buffer, 64-byte blocks
  // Enabled speeds and widths per port, indexed 0..num_ports (index 0: a switch's management port,
  // unused on an HCA). Empty means every speed / width on every port (nodes built in code);
  // otherwise the size is num_ports + 1 and no set is empty (nodes read from a file or generated
  // always have every entry). Read them with enabled_speeds() / enabled_widths().
  std::vector<SpeedSet> port_speeds;
  std::vector<WidthSet> port_widths;
  SwitchKind kind = SwitchKind::kUnstated;  // a switch's `kind:`
  SourceMark mark;
  SourceMark kind_mark;  // where `kind:` was given

  SpeedSet enabled_speeds(unsigned port) const { return port_speeds.empty() ? kAllSpeeds : port_speeds.at(port); }
  WidthSet enabled_widths(unsigned port) const { return port_widths.empty() ? kAllWidths : port_widths.at(port); }
};

struct TopoCable {
  std::size_t node_a = 0;
  unsigned port_a = 0;
  std::size_t node_b = 0;
  unsigned port_b = 0;
  LinkRate rate;                 // speed and width the cable carries (training may settle lower)
  std::uint32_t length_mm = 0;   // sets the propagation delay
  std::uint16_t failed_lanes = 0;  // bit i: lane i (numbered at end a) carries nothing
  bool lanes_reversed = false;     // lane i at one end meets lane width-1-i at the other
  // FEC (fec.h): on or off where the speed the link trains at makes it optional (FDR, EDR); unset:
  // the speed's default (on at HDR and above, which require it; off below).
  std::optional<bool> fec;
  // An Ethernet cable (`speed: 25GbE` .. `400GbE`, for `fabric: roce`): its speed, with `fec` and
  // `length` as above; `rate` is then unused. Unset: an InfiniBand cable (on RoCE it takes the
  // scenario's `roce.speed` and `roce.cable_delay`).
  std::optional<EthernetSpeed> ethernet_speed;
  SourceMark mark;

  // The end of this cable that is not on `node` (cables never join a node to itself).
  PortRef far_end(std::size_t node) const;
  // Its data rate for reports: the Ethernet speed's, else the InfiniBand rate's.
  double data_gbps() const {
    return ethernet_speed ? static_cast<double>(ethernet_speed_info(*ethernet_speed).data_gbps) : rate.data_gbps();
  }
};

// Settings used wherever a node or cable does not give its own (topology file `defaults:`).
struct TopologyDefaults {
  LinkRate link_rate;                        // 4x EDR
  std::uint32_t link_length_mm = 2000;
  std::optional<bool> link_fec;              // every cable's `fec` (TopoCable::fec)
  // Unset means 36 for declared switches and exactly as many as needed for generated ones.
  std::optional<unsigned> switch_ports;
  Time switch_latency = 100 * kNs;
  std::uint32_t switch_buffer_credits = 128;
  unsigned hca_ports = 1;
  std::uint32_t hca_buffer_credits = 256;
  Time propagation_per_m = 5 * kNs;
  // Enabled speeds/widths, data VLs and VL15 buffer of every port of every switch / HCA.
  SpeedSet switch_speeds = kAllSpeeds;
  WidthSet switch_widths = kAllWidths;
  unsigned switch_vls = kDefaultDataVls;
  std::uint32_t switch_vl15_buffer_credits = kDefaultVl15Credits;
  SpeedSet hca_speeds = kAllSpeeds;
  WidthSet hca_widths = kAllWidths;
  unsigned hca_vls = kDefaultDataVls;
  std::uint32_t hca_vl15_buffer_credits = kDefaultVl15Credits;
};

// The default switch port count when neither the node nor the defaults give one.
constexpr unsigned kDefaultSwitchPorts = 36;
// A router's when it gives none: one port per subnet it joins, two.
constexpr unsigned kDefaultRouterPorts = 2;

// The node GUID given to the node at `index` when the topology names none, under the Mellanox
// OUI 00:02:c9: a switch gets 0x0002c90300000000 + index + 1, an HCA 0x0002c90301000000 + index + 1
// + `hca_extra_ports`, the number of ports beyond the first of the HCAs declared before it. An HCA
// port p has the port GUID node GUID + p (as ConnectX, ibsim and ibnetdiscover have it) and a switch
// one port GUID, its node GUID; the separate HCA range keeps HCA port GUIDs off the switch GUIDs
// (with one range, the last HCA's port 1 had the next switch's GUID), and the extra-port offset
// keeps a multi-port HCA's port GUIDs off the next HCA's. GUIDs stay stable under edits that append
// nodes, and single-port fabrics get exactly the GUIDs of the golden OpenSM data
// (tests/subnet_manager/golden), so `ibfsim topo --ibsim` output runs unchanged under OpenSM.
// A router gets 0x0002c90302000000 + (index + 1) * 0x100, its port p that + p (a range of its own,
// room for 255 ports).
constexpr Guid kDefaultGuidBase = 0x0002c90300000000ull;
constexpr Guid kDefaultHcaGuidBase = 0x0002c90301000000ull;
constexpr Guid kDefaultRouterGuidBase = 0x0002c90302000000ull;
inline Guid default_guid(NodeType type, std::size_t index, std::size_t hca_extra_ports = 0) {
  if (type == NodeType::kRouter) return kDefaultRouterGuidBase + (index + 1) * 0x100;
  return type == NodeType::kSwitch ? kDefaultGuidBase + index + 1 : kDefaultHcaGuidBase + index + 1 + hca_extra_ports;
}
// The port GUID of port `port` of `node` (NodeInfo.PortGUID): node GUID + port for an HCA or a
// router, the node GUID for every port of a switch.
inline Guid port_guid_of(const TopoNode& node, unsigned port) {
  return node.type == NodeType::kSwitch ? node.guid : node.guid + port;
}

// A server (what NCCL calls a node): a box whose HCAs (one per GPU) share an intra-node fabric
// (NVLink-like, a scenario's `intra_node:`). Its hosts are listed in rail order: hosts[k] is the HCA
// of rail k (on a rail-optimised fabric, cabled to a leaf of rail k). A host belongs to at most one.
struct TopoServer {
  std::string name;
  std::vector<std::size_t> hosts;  // HCA node indices, rail order
  SourceMark mark;
};

struct Topology {
  std::string source_file;
  std::vector<TopoNode> nodes;
  std::vector<TopoCable> cables;
  std::vector<TopoServer> servers;  // `servers:`, or what a generator groups; empty: none
  Time propagation_per_m = 5 * kNs;  // signal delay per metre of cable

  // Linear search; build a map for repeated lookups in large fabrics.
  std::optional<std::size_t> find_node(std::string_view name) const;
  // The cable attached to (node, port), if any. Linear search; see port_cables() for bulk use.
  std::optional<std::size_t> cable_at(std::size_t node, unsigned port) const;
  // [node][port] -> cable index (ports 0..num_ports), built in one pass over the cables.
  // Requires a topology that passed validate_topology.
  using PortCables = std::vector<std::vector<std::optional<std::size_t>>>;
  PortCables port_cables() const;
  // Indices of the HCAs / switches / routers in declaration order.
  std::vector<std::size_t> hcas() const;
  std::vector<std::size_t> switches() const;
  std::vector<std::size_t> routers() const;
  // One-way signal delay of a cable: propagation_per_m * length, rounded to the nearest fs.
  Time cable_delay(std::size_t cable) const;
  // [node] -> index into servers of the server holding it (HCAs only), in one pass.
  std::vector<std::optional<std::size_t>> server_of() const;
};

// Checks what the parser cannot check one value at a time: node names unique and well formed,
// node GUIDs unique and nonzero, port GUIDs (port_guid_of) unique, port counts 1..kMaxPorts, data
// VLs 1/2/4/8/15, at least kMinVl15Credits VL15 credits, per-port speed/width sets sized num_ports + 1 and not empty, cable
// ends naming existing nodes and ports 1..num_ports (port 0 is a switch's management port and is
// never cabled), no port on two cables, no cable from a node to itself or between two routers, every
// switch and router cabled at least once, every cable's speed and width enabled at both of its
// ports, and servers named once, nonempty, of HCAs each in at most one. Unconnected HCA ports are
// fine. Throws InputError "MARK: expected ..., got ..." pointing at the offending node or cable.
void validate_topology(const Topology& topo);

// Nodes that cannot reach the main part of the fabric, in declaration order. Routes pass through
// switches (and routers) only, so the parts are: switches joined by switch-to-switch cables, with
// the HCA and router ports cabled to them (an HCA cabled into two parts does not join them: it sits
// in two subnets; a router does), and pairs of HCA ports cabled back to back. The main part is the one with the most nodes (ties: the
// one holding the earliest declared node); a node is unreachable when none of its ports (a switch:
// the switch itself) is in it. Empty for a connected fabric. Requires a validated topology.
std::vector<std::size_t> unreachable_nodes(const Topology& topo);

// Things that are legal but probably not what the user wants, one message each, in this order:
//   "MARK: the fabric is not connected: 2 of 10 nodes cannot reach the rest: h9, sw3"
//     (MARK is the first unreachable node's; at most 10 names, then "and N more")
//   "MARK: the link h1/1 - sw1/3 will negotiate down to QDR, the best speed both ends enable
//     (h1/1 enables up to EDR, sw1/3 up to FDR)"   (one per cable, MARK is the cable's; the same
//     for widths: "... negotiate down to 4x, the best width both ends enable (... up to 8x, ...)")
// A link negotiates down when the best value both ends enable is below each end's own best.
// Requires a validated topology.
std::vector<std::string> topology_warnings(const Topology& topo);

// For scenarios that need every host reachable: throws InputError
//   "MARK: expected a connected fabric (every node reachable through switches), got 2 nodes cut off
//    from the rest: h9, sw3"
// (MARK and the list as in topology_warnings) unless unreachable_nodes(topo) is empty.
void require_connected(const Topology& topo);

}  // namespace ibfsim
