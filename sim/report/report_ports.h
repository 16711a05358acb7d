// What a run's report (run_report.h) shows of each connected port, read from the run's statistics
// (stats_registry.h): what the port sends (its utilisation, its worst VL's
// credit-stall time, the FECNs its switch marked there) and its packet counts. Pure.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "sim/core/stats_registry.h"
#include "sim/core/stats_snapshot.h"

namespace ibfsim {

struct ReportPort {
  std::string node;
  unsigned port = 0;
  std::string peer, state;
  // Fractions of the measurement window (windowed) or of the whole run; FECNs marked (count).
  double util = 0, stall = 0, fecn = 0;
  std::uint64_t tx_packets = 0, rx_packets = 0, discards = 0;
  std::string key() const { return node + "/" + std::to_string(port); }
};

struct ReportPorts {
  std::vector<ReportPort> ports;  // in the statistics' order (node, then port)
  bool windowed = false;          // utilisation and stall over the measurement window
};

// Every port of the snapshot's "ports" kind. A port with the measurement window's figures
// (port_utilization.csv, credit_stall.csv) shows those, over `window_ns`; one without, the whole
// run's (run_busy_fraction, port_vls.csv's credit_stall_ns over `run_ns`).
ReportPorts report_ports(const StatsSnapshot& snapshot, double window_ns, double run_ns);
// The same, read from the registry row by row (no snapshot of the fabric's ports).
ReportPorts report_ports(const StatsRegistry& registry, double window_ns, double run_ns);

}  // namespace ibfsim
