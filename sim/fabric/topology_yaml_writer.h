// Writing a topology as a YAML topology file (topologies/README.md), from any input: a fabric read
// from an ibnetdiscover dump or an ibsim net file, or built by a generator, becomes a file of nodes
// and cables whose buffers, latencies, VLs, enabled speeds and cable lengths can be edited
// (`ibfsim topo FILE --yaml OUT`).
//
// The file is as short as an exact copy allows: `defaults` take the most common value of each
// setting (switches, HCAs and cables apart), and a node or cable names only what differs; a GUID
// is written only where it is not the default GUID of its place (topology.h), so an imported
// fabric keeps its real GUIDs and a generated one writes none. Reading the file back gives the
// same topology: the same nodes in the same order (names, types, ports, GUIDs, latency, buffers,
// VLs, enabled speeds and widths of every port) and the same cables (ends, rate, length, failed
// and reversed lanes), and the same propagation delay.
#pragma once
#include <string>

#include "sim/fabric/topology.h"

namespace ibfsim {

// `comment` (may be empty) becomes '#' lines at the top, e.g. where the fabric came from.
std::string write_topology_yaml(const Topology& topo, const std::string& comment = "");

// Durations and lengths as a topology file writes them, exactly: "100ns", "1500ps", "7fs";
// "2m", "30cm", "750mm".
std::string topology_duration_text(Time t);
std::string topology_length_text(std::uint32_t mm);

}  // namespace ibfsim
