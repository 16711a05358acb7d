// The statistics an HCA keeps beyond its ports' own (port_statistics.h): the packets it discarded
// at each port, by reason (discards.csv), and congestion control per QP and per throttle
// (cc_qps.csv, cc_sl_throttles.csv). Read through Hca's
// public accessors when the registry takes its snapshot.
#pragma once
#include <string>

#include "sim/core/stats_registry.h"
#include "sim/transport/hca.h"

namespace ibfsim {

// Where a QP's congestion control figures are: its counters, and its throttle's state when the
// throttle is per QP and has one.
struct QpCcStatsSource {
  const CcQpCounters* counters = nullptr;
  const CcThrottle::State* throttle = nullptr;
};

// Registers the kinds "qps" (keys hca, qpn) and, with throttles per port and SL (`per_sl`),
// "sl_throttles" (keys hca, port, sl) and their statistics, once per registry.
void register_hca_kinds(StatsRegistry& registry, bool per_sl);

// Adds the discards of port `port` of `hca` under its row of "ports" (register_port_kinds): a row
// for each reason it discarded for. Call once the run is over.
void register_hca_port_discards(StatsRegistry& registry, const Hca& hca, PortNum port, std::size_t port_row);

// Adds the congestion control figures of `hca` (node `node`): every QP with counters and, with
// throttles per port and SL (`per_sl`), every such throttle. Call once the run is over: QPs get
// counters as they meet congestion.
void register_hca_statistics(StatsRegistry& registry, const Hca& hca, const std::string& node, bool per_sl);

}  // namespace ibfsim
