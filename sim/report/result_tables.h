// The CSV tables a run writes beside results.json: everything that has a row per port, VL, link,
// HCA, QP, ... (docs/scenario.md, "Outputs"). results.json keeps the run's and the fabric's own
// figures and an index of these tables ("tables"); report/results_view.h reads them back.
#pragma once
#include <string>
#include <vector>

#include "sim/core/stat_outputs.h"

namespace ibfsim {

struct ResultTable {
  const char* name;   // "ports": the file ports.csv, or ports.csv.zst with outputs.compress
  StatOutput output;  // the statistics it holds (stats_registry.h)
};

// Every table, in the order a run writes them. A run writes those whose statistics are registered
// (the congestion control tables with congestion control, ...).
const std::vector<ResultTable>& result_tables();

}  // namespace ibfsim
