// One entry point for every topology file ibfsim reads: YAML (topology_yaml.h), ibnetdiscover
// output (ibnetdiscover_format.h) or an ibsim net file (ibsim_format.h), told apart by content.
#pragma once
#include <string>
#include <string_view>
#include <utility>
#include <vector>

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

// The same with `--set` overrides of the topology's keys (dotted paths below the file's root,
// e.g. {"defaults.switch.buffer_credits", "512"}: yaml_input.h's apply_override). A YAML file
// takes them as it is; an ibnetdiscover dump or ibsim net file is first turned into the YAML
// `ibfsim topo FILE --yaml` writes (topology_yaml_writer.h), so its nodes and cables are lists
// whose elements the overrides may name (nodes.3.buffer_credits, cables.0.length) and its
// settings sit under `defaults`.
Topology load_topology_file(const std::string& path, const std::vector<std::pair<std::string, std::string>>& overrides,
                            TopologyFormat* format = nullptr);

}  // namespace ibfsim
