// The statistics of a RoCE run's fabric (roce_hca_fabric.h), registered once: the packet ledger's
// totals under the names an InfiniBand run uses ("packets.created", ...), and the Ethernet
// counters of its ports and switches as fabric totals in results.json ("ethernet.*"). Across MPI
// ranks each total is summed over the nodes this rank simulates, then across ranks, when registered:
// every rank registers them (a collective), after RoceHcaFabric::finish_ranks.
#pragma once
#include "sim/core/packet_ledger.h"
#include "sim/core/stats_registry.h"
#include "sim/fabric/roce_hca_fabric.h"

namespace ibfsim {

void register_roce_fabric_statistics(StatsRegistry& registry, RoceHcaFabric& fabric, const PacketLedger& ledger);

}  // namespace ibfsim
