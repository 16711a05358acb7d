// Reading a topology file (schema: topologies/README.md) into a validated Topology.
#pragma once
#include <yaml-cpp/yaml.h>

#include <string>

#include "sim/fabric/topology.h"

namespace ibfsim {

// Loads, parses and validates a topology file. Every problem is an InputError naming
// FILE:LINE:COL and what was expected.
Topology load_topology(const std::string& path);

// The same for a document already loaded (e.g. after --set overrides); file_name is used in
// messages and as Topology::source_file.
Topology parse_topology(const YAML::Node& root, const std::string& file_name);

}  // namespace ibfsim
