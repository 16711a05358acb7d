// `subnet_manager:` of a scenario (docs/scenario.md, "Subnet manager"): `static`, or the in-band
// SM's settings (host, routing engine and its options, timeouts, M_Key, SA, SMA timing, adaptive
// routing), checked against the topology.
#pragma once
#include "sim/fabric/topology.h"
#include "sim/fabric/yaml_input.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

// `root`: the scenario's top-level map (relative file names resolve from its folder).
SubnetManagerSpec parse_subnet_manager(const YamlMap& root, const Topology& topo);

}  // namespace ibfsim
