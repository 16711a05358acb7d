// One entry point for every topology file ibfsim reads: YAML (topology_yaml.h), ibnetdiscover
// output (ibnetdiscover_format.h) or an ibsim net file (ibsim_format.h), told apart by content.
#pragma once
#include <string>
#include <string_view>

#include "sim/fabric/topology.h"

namespace ibfsim {

enum class TopologyFormat { kYaml, kIbnetdiscover, kIbsim };

const char* topology_format_name(TopologyFormat f);  // "YAML", "ibnetdiscover", "ibsim"

// Decides by the first line that is neither blank nor a '#' comment: a net file starts with a
// node header ("Switch 36 ...", "Ca 1 ...", "Hca 2 ...", "Rt ...") or an assignment ibnetdiscover
// or ibsim writes (vendid=, devid=, sysimgguid=, switchguid=, caguid=, hcaguids=, rtguid=);
// anything else is YAML. A net file is ibnetdiscover output if every node header's id is an
// ibnetdiscover id ("S-"/"H-"/"R-" + 16 hex digits), otherwise an ibsim net file.
TopologyFormat detect_topology_format(std::string_view text);

// Reads, detects, parses and validates. Every problem is an InputError naming FILE:LINE:COL (or
// FILE alone when no line applies, e.g. an unreadable file). If `format` is given it receives the
// detected format.
Topology load_topology_file(const std::string& path, TopologyFormat* format = nullptr);

}  // namespace ibfsim
