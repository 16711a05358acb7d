// Reading and writing the text that infiniband-diags' `ibnetdiscover` prints, the usual snapshot
// of a real InfiniBand fabric, and the shared reader for OFED ibsim's net files (a superset of
// the same syntax; see ibsim_format.h).
//
// What an ibnetdiscover dump looks like (one record per node, switches first, then CAs; each
// record lists only the ports that have a link, both ends of every link appear):
//
//   vendid=0x2c9
//   devid=0xcb20
//   sysimgguid=0x248a070300f87d30
//   switchguid=0x248a070300f87d30(248a070300f87d30)
//   Switch  36 "S-248a070300f87d30"   # "MF0;leaf01:MSB7700/U1" enhanced port 0 lid 1 lmc 0
//   [1]  "H-0c42a10300a1b2c0"[1](c42a10300a1b2c1)     # "node01 HCA-1" lid 3 4xEDR
//   [35] "S-248a070300f87e10"[35]    # "MF0;leaf02:MSB7700/U1" lid 2 4xEDR
//
//   vendid=0x2c9
//   devid=0x1017
//   sysimgguid=0x0c42a10300a1b2c0
//   caguid=0x0c42a10300a1b2c0
//   Ca  1 "H-0c42a10300a1b2c0"   # "node01 HCA-1"
//   [1](c42a10300a1b2c1)  "S-248a070300f87d30"[1]   # lid 3 lmc 0 "MF0;leaf01:MSB7700/U1" lid 1 4xEDR
//
// Import: a node's GUID is the hex part of its id ("S-"/"H-" + 16 hex digits); its name is its
// description (the first quoted string after '#') made a valid, unique node name (see
// node_name_from_description). A link's rate is the WIDTHxSPEED at the end of its port lines
// (4xEDR; the active rate, so both ends must agree). What the format does not carry gets the
// topology defaults (TopologyDefaults{}): cable length 2 m, switch latency 100 ns, buffer credits.
// LIDs, LMC, vendid/devid, port GUIDs and -g grouping lines are read over: ibfsim assigns its own
// LIDs (static_routing.h). Routers ("Rt") are refused.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sim/core/ids.h"
#include "sim/fabric/net_file_reader.h"
#include "sim/fabric/topology.h"

namespace ibfsim {


// Parses and validates ibnetdiscover output. Every problem is an InputError
// "FILE:LINE:COL: expected ..., got ...".
Topology parse_ibnetdiscover(std::string_view text, const std::string& file_name);

// The reader behind parse_ibnetdiscover and parse_ibsim.
Topology parse_net_file(std::string_view text, const std::string& file_name, NetFileDialect dialect);


// A node name from a description: surrounding whitespace is dropped and every run of characters
// that a node name or the net file syntax cannot hold (whitespace, control characters, non-ASCII
// bytes and / " # @ = \) becomes one '_'. "node01 HCA-1" -> "node01_HCA-1",
// "MF0;leaf01:MSB7700/U1" -> "MF0;leaf01:MSB7700_U1". Empty or all-'_' results give "".
// Idempotent: a name it returns maps to itself.
std::string node_name_from_description(std::string_view description);

// Makes names unique in order: a name seen before gets "_2", "_3", ... (the first free one).
// Empty names must have been replaced before.
std::vector<std::string> make_unique_names(std::vector<std::string> names);

// The names the writers use for topo's nodes: node_name_from_description of each node name (the
// node's id if that is empty), made unique. For nodes read from a net file these are their names.
std::vector<std::string> export_node_names(const Topology& topo);

// Placeholders the writer puts in vendid=/devid= lines, which ibfsim does not model: Mellanox's
// vendor id, Switch-IB's and ConnectX-4's device ids.
constexpr unsigned kExportVendorId = 0x2c9;
constexpr unsigned kExportSwitchDeviceId = 0xcb20;
constexpr unsigned kExportHcaDeviceId = 0x1013;

// Writes a validated topology as ibnetdiscover prints it (switches in declaration order, then
// HCAs; cabled ports only). Ids come from node GUIDs, descriptions are export_node_names, LIDs
// are those compute_static_routing assigns (LMC 0), port GUIDs are the node GUID (switches) or
// node GUID + port number (HCAs: ConnectX's and ibsim's convention). The header names ibfsim
// instead of a date, so the same topology always gives the same text. Cable lengths, latencies
// and buffer sizes have no place in the format and are lost.
std::string write_ibnetdiscover(const Topology& topo);

}  // namespace ibfsim
