// The outputs a statistic can appear in, one bit each: a statistic's registration ORs together
// the outputs it belongs to (stats_registry.h), and each writer (sim/report/stat_tables.h) picks
// the statistics of its own bit. results.json holds the figures of the run and of the fabric as a
// whole; whatever has a row per port, VL, link, QP, ... is a CSV table of its own
// (sim/report/result_tables.h), so that results.json stays small on any fabric.
#pragma once
#include <cstdint>

namespace ibfsim {

using StatOutputs = std::uint32_t;
inline constexpr StatOutputs kAllStatOutputs = ~StatOutputs{0};  // every output (a whole snapshot)

enum StatOutput : StatOutputs {
  kResultsTop = 1u << 0,                // results.json, top level ("packets", "simulation", ...)
  kResultsCongestionControl = 1u << 2,  // results.json "congestion_control" ("totals", "mads_sent", ...)
  kResultsAdaptiveRouting = 1u << 6,    // results.json "adaptive_routing" ("totals")
  kPortsCsv = 1u << 8,                  // ports.csv
  kPortVlsCsv = 1u << 9,                // port_vls.csv
  kDiscardsCsv = 1u << 10,              // discards.csv
  kPortUtilizationCsv = 1u << 11,       // port_utilization.csv (measurement window)
  kCreditStallCsv = 1u << 12,           // credit_stall.csv (measurement window)
  kClassesCsv = 1u << 13,               // classes.csv
  kLinksCsv = 1u << 14,                 // links.csv
  kHcaModelCsv = 1u << 15,              // hca_model.csv
  kCcSwitchPortsCsv = 1u << 16,         // cc_switch_ports.csv
  kCcQpsCsv = 1u << 17,                 // cc_qps.csv
  kCcSlThrottlesCsv = 1u << 18,         // cc_sl_throttles.csv
  kFaultDestinationsCsv = 1u << 19,     // fault_destinations.csv
  kMKeyViolationsCsv = 1u << 20,        // m_key_violations.csv
  kAttackTargetsCsv = 1u << 21,         // attack_targets.csv
  kArSwitchesCsv = 1u << 22,            // ar_switches.csv
  kCollectivesCsv = 1u << 23,           // collectives.csv
  kAggregationNodesCsv = 1u << 24,      // aggregation_nodes.csv (SHARP)
  kCmAgentsCsv = 1u << 25,              // cm_agents.csv
  kCmConnectionsCsv = 1u << 26,         // cm_connections.csv
  kTraceRanksCsv = 1u << 27,            // trace_ranks.csv (trace replay)
  kTraceStepsCsv = 1u << 28,            // trace_steps.csv (trace replay)
  kSrqsCsv = 1u << 29,                  // shared_receive_queues.csv
  kEthernetPortsCsv = 1u << 30,         // ethernet_ports.csv (RoCE)
  kEthernetPrioritiesCsv = 1u << 31,    // ethernet_priorities.csv (RoCE: PFC per port and priority)
  kEthernetSwitchesCsv = 1u << 1,       // ethernet_switches.csv (RoCE)
  kDcqcnHcasCsv = 1u << 3,              // dcqcn_hcas.csv (RoCE)
  kDcqcnQpsCsv = 1u << 4,               // dcqcn_qps.csv (RoCE)
  kSaSubscribersCsv = 1u << 5,          // sa_subscribers.csv (bit 7 is the last free one)
};

}  // namespace ibfsim
