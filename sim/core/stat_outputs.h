// The outputs a statistic can appear in, one bit each: a statistic's registration ORs together
// the outputs it belongs to (stats_registry.h), and each writer (sim/report/stat_tables.h) picks
// the statistics of its own bit. The results.json bits say where in the document the rows go.
#pragma once
#include <cstdint>

namespace ibfsim {

using StatOutputs = std::uint32_t;

enum StatOutput : StatOutputs {
  kResultsTop = 1u << 0,                // results.json, top level ("packets", "simulation", ...)
  kResultsPorts = 1u << 1,              // results.json "ports"
  kResultsCongestionControl = 1u << 2,  // results.json "congestion_control" ("totals", "mads_sent", ...)
  kResultsCcSwitchPorts = 1u << 3,      // results.json "congestion_control" "switch_ports"
  kResultsCcQps = 1u << 4,              // results.json "congestion_control" "qps"
  kResultsCcSlThrottles = 1u << 5,      // results.json "congestion_control" "sl_throttles"
  kResultsAdaptiveRouting = 1u << 6,    // results.json "adaptive_routing" ("totals")
  kResultsArSwitches = 1u << 7,         // results.json "adaptive_routing" "switches"
  kPortsCsv = 1u << 8,                  // ports.csv
  kPortVlsCsv = 1u << 9,                // port_vls.csv
  kDiscardsCsv = 1u << 10,              // discards.csv
  kPortUtilizationCsv = 1u << 11,       // port_utilization.csv (measurement window)
  kCreditStallCsv = 1u << 12,           // credit_stall.csv (measurement window)
  kClassesCsv = 1u << 13,               // classes.csv
};

}  // namespace ibfsim
