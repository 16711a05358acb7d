// The statistics a switch keeps about its ports, beyond the link's own (port_statistics.h): the
// packets it discarded there, by reason (discards.csv), what its congestion detector saw and
// marked at each port that met congestion (cc_switch_ports.csv), and its adaptive routing choices
// (ar_switches.csv). Read through Switch's public accessors when the registry takes its snapshot.
#pragma once
#include <string>

#include "sim/core/stats_registry.h"
#include "sim/network/switch.h"

namespace ibfsim {

// Registers the kind "switch_ports" (keys node, port) and its statistics, once per registry.
void register_switch_kinds(StatsRegistry& registry);

// Adds the discards of port `port` of `sw` under its row of "ports" (register_port_kinds): a row
// for each reason it discarded for. Call once the run is over.
void register_switch_port_discards(StatsRegistry& registry, const Switch& sw, PortNum port, std::size_t port_row);

// Registers the kind "ar_switches" (key node): each switch's adaptive routing counts
// (adaptive_selector.h), ar_switches.csv. Once per registry.
void register_ar_switch_kinds(StatsRegistry& registry);
// Adds `sw`'s row of "ar_switches".
void register_ar_switch_statistics(StatsRegistry& registry, const Switch& sw, const std::string& node);

// Adds the congestion figures of every port of `sw` (node `node`), if it has a congestion detector.
// A port appears in the output once it met congestion (root, victim or credit starvation).
void register_switch_statistics(StatsRegistry& registry, const Switch& sw, const std::string& node);

}  // namespace ibfsim
