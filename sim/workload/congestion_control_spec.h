// Reading a scenario's `congestion_control:` block (docs/scenario.md, "Congestion control") into
// the settings the subnet manager's congestion control step programs (cc_configuration.h), and
// its time-series output settings (`outputs.time_series`).
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "sim/core/time.h"
#include "sim/fabric/topology.h"
#include "sim/fabric/yaml_input.h"
#include "sim/subnet_manager/sm/cc_configuration.h"

namespace ibfsim {

// Throws InputError naming file:line:col for a bad key or value; port references are checked
// against `topo` (switch ports with a cable).
CongestionControlSettings parse_congestion_control(const YamlMap& m, const Topology& topo);

// The defaults of the block, in one place (docs/scenario.md lists the same numbers).
CongestionControlSettings default_congestion_control();

// `outputs.time_series`: sample every `interval` (0: off).
struct TimeSeriesSpec {
  Time interval = 0;
  std::vector<std::pair<std::size_t, unsigned>> ports;  // (switch node, port): output queue depth
  bool png = true, svg = true;                         // gnuplot renderings
};

TimeSeriesSpec parse_time_series(const YamlValue& v, const Topology& topo);

}  // namespace ibfsim
