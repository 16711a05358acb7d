// Graphviz DOT of a topology, to look at a fabric: `dot -Tsvg fabric.dot -o fabric.svg`
// (`sfdp` for large fabrics).
//
// An undirected graph: switches are boxes labelled "name\nN ports", HCAs ellipses; each cable is
// an edge with its port numbers at the ends (taillabel/headlabel). The rate and length most
// cables share are stated once in the graph label; an edge is labelled only where its cable
// differs ("4x HDR, 30m"). Every node carries its GUID as a tooltip. Node and edge order follow
// the topology, so the same topology always gives the same text.
#pragma once
#include <string>

#include "sim/fabric/topology.h"

namespace ibfsim {

std::string write_dot(const Topology& topo);

// A DOT double-quoted string for `s`: quotes and backslashes escaped, newlines as \n.
std::string dot_quote(const std::string& s);

// A cable length as topology files write it: 2000 -> "2m", 500 -> "0.5m", 1 -> "0.001m".
std::string format_length_mm(std::uint32_t mm);

}  // namespace ibfsim
