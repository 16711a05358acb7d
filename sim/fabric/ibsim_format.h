// OFED ibsim's net files (ibsim/sim_net.c; examples in Debian's ibsim-utils,
// /usr/share/doc/ibsim-utils/net-examples). ibsim reads ibnetdiscover output and this simpler
// hand-written form of the same syntax:
//
//   switchguid=0x0002c90300000009          (optional: the next switch's node GUID)
//   Switch  36 "sw1"  # "sw1" enhanced port 0 lid 9 lmc 0
//   [1]  "h1"[1]  # "h1" lid 1 4xEDR
//   [2]  "h2"[1]  w=2 s=4                 (ibsim's enabled width / speed masks)
//
//   Hca  1 "h1"
//   [1]  "sw1"[1]
//
// A record is a header line (Switch, Hca or Ca, the port count, the quoted node id) and the port
// lines that follow it; any other line (a blank one) ends it. Both ends of every link are listed.
//
// Import: node names are the ids (made valid: node_name_from_description). Node GUIDs are what
// ibsim gives the node: a per-type counter that a `switchguid=` / `caguid=` (or `hcaguids=`) line
// sets, starting at 0x200000 for switches and 0x100000 for HCAs; a switch takes one GUID, an HCA
// ports + 1. A port's options w= (LinkWidthEnabled), s= (LinkSpeedEnabled, 0 = QDR) and e=
// (LinkSpeedExtEnabled) become its enabled sets (TopoNode::port_widths / port_speeds, which use
// the same encodings); ports without options enable everything. A link's rate is the WIDTHxSPEED
// in its port lines' comments (as ibnetdiscover writes it; ibsim 0.10 reads it too and lets it
// win over the options); failing that, the best width and speed both ends enable; what is still
// unknown defaults to 4x EDR. Cable lengths: 2 m. Not supported (an error): aliases ('@' lines),
// include, do and the other ibsim directives.
#pragma once
#include <string>
#include <string_view>

#include "sim/fabric/topology.h"

namespace ibfsim {

// Parses and validates an ibsim net file; every problem is an InputError "FILE:LINE:COL: ...".
Topology parse_ibsim(std::string_view text, const std::string& file_name);

// ibsim's default table sizes (ibsim 0.10: sim.h MAXNETNODES, MAXNETSWITCHS, MAXNETPORTS); a larger
// fabric needs `ibsim -N nodes -S switches -P ports`, which the written file's header spells out.
constexpr std::size_t kIbsimDefaultMaxNodes = 2048;
constexpr std::size_t kIbsimDefaultMaxSwitches = 256;
constexpr std::size_t kIbsimDefaultMaxPorts = 13312;
// ibsim keeps node ids in 65-byte buffers: longer ids would be cut (and could collide).
constexpr std::size_t kIbsimMaxNodeIdLength = 64;

// Writes a validated topology as an ibsim net file that `ibsim -s FILE` loads: nodes in
// declaration order, ids = export_node_names (ibnetdiscover_format.h), a switchguid=/caguid= line
// before each node so that ibsim gives it its GUID, w=/s=/e= options on cabled ports whose enabled
// sets are not everything (an FDR10 bit has no ibsim option and is left out; uncabled ports are not
// listed), and each port line's comment carries the link's rate the way ibnetdiscover writes it
// ("lid 1 4xEDR"; LIDs from compute_static_routing).
// Throws InputError if a node name is longer than kIbsimMaxNodeIdLength.
std::string write_ibsim(const Topology& topo);

}  // namespace ibfsim
