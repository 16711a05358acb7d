// The tables of what the run gathered as facts (run_facts.h) rather than as module counters: links
// (links.csv), the HCA model of each HCA (hca_model.csv), each fault's destinations
// (fault_destinations.csv), M_Key violations per node (m_key_violations.csv) and the switches an
// attack targeted (attack_targets.csv). Registered as statistics (stats_registry.h) so that the
// same writer makes every table; the facts must outlive the registry's snapshot.
#pragma once
#include "sim/core/stats_registry.h"
#include "sim/report/run_facts.h"

namespace ibfsim {

// Registers the kinds of the facts `f` has rows for (a kind without rows is not registered, and
// its table not written) and adds the rows.
void register_fact_tables(StatsRegistry& registry, const RunFacts& f);

}  // namespace ibfsim
