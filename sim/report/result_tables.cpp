#include "sim/report/result_tables.h"

namespace ibfsim {

const std::vector<ResultTable>& result_tables() {
  static const std::vector<ResultTable> tables = {
      {"ports", kPortsCsv},
      {"port_vls", kPortVlsCsv},
      {"discards", kDiscardsCsv},
      {"port_utilization", kPortUtilizationCsv},
      {"credit_stall", kCreditStallCsv},
      {"links", kLinksCsv},
      {"hca_model", kHcaModelCsv},
      {"cc_switch_ports", kCcSwitchPortsCsv},
      {"cc_qps", kCcQpsCsv},
      {"cc_sl_throttles", kCcSlThrottlesCsv},
      {"ar_switches", kArSwitchesCsv},
      {"fault_destinations", kFaultDestinationsCsv},
      {"m_key_violations", kMKeyViolationsCsv},
      {"attack_targets", kAttackTargetsCsv},
      {"classes", kClassesCsv},
      {"collectives", kCollectivesCsv},
      {"aggregation_nodes", kAggregationNodesCsv},
      {"cm_agents", kCmAgentsCsv},
      {"cm_connections", kCmConnectionsCsv},
      {"trace_ranks", kTraceRanksCsv},
      {"trace_steps", kTraceStepsCsv},
      {"shared_receive_queues", kSrqsCsv},
      {"sa_subscribers", kSaSubscribersCsv},
      {"ethernet_ports", kEthernetPortsCsv},
      {"ethernet_priorities", kEthernetPrioritiesCsv},
      {"ethernet_switches", kEthernetSwitchesCsv},
      {"dcqcn_hcas", kDcqcnHcasCsv},
      {"dcqcn_qps", kDcqcnQpsCsv},
  };
  return tables;
}

}  // namespace ibfsim
