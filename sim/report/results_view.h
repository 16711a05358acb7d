// A results folder read back: results.json and the CSV tables beside it (result_tables.h), plain
// or zstd-compressed. The tables hold what results.json once held in arrays of its own (a port per
// element, a link per element, ...); this view gives those members back in that shape, built from
// the tables, so that a figure is found by the same path wherever it is kept:
//
//   ports       one object per row of ports.csv: its columns, with "rcv_errors" {phy_error,
//               vcrc_error, ebp} (ports.csv's rcv_errors is their sum), "vls" (port_vls.csv: one
//               object per data VL), "discards" (discards.csv: reason -> packets), and with a
//               measurement window "window" {busy_fraction (port_utilization.csv), credit_stall_ns
//               (credit_stall.csv: a list by VL)}
//   links       links.csv (lists as arrays, lane_reversed a boolean, up_ns and active_ns null when
//               never)
//   hca_model   hca_model.csv
//   congestion_control   results.json's, with "switch_ports", "qps" and "sl_throttles" from
//               cc_switch_ports.csv, cc_qps.csv and cc_sl_throttles.csv
//   adaptive_routing   results.json's, with "switches" from ar_switches.csv
//   faults      results.json's, each with "destinations" (fault_destinations.csv)
//   subnet_manager   results.json's, with "m_key" "violations" (m_key_violations.csv: node -> count)
//   attacks     results.json's, rogue_smp and smp_flood ones with "targets" (attack_targets.csv)
//
// and any table by its name (`port_vls`, `classes`, ...) as one flat object per row. Cells read as
// numbers when they are numbers, "true"/"false" as booleans, the rest as text; an empty cell is
// absent. Used by `ibfsim sweep --metric` (a selector resolves against the tables where
// results.json does not have it), by the Python package and by the tests.
#pragma once
#include <nlohmann/json.hpp>

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "sim/report/csv_text.h"
#include "sim/report/json_select.h"

namespace ibfsim {

// The file of table `name` in `folder`: NAME.csv, else NAME.csv.zst; nothing when neither exists.
std::optional<std::string> find_table(const std::string& folder, const std::string& name);
// Table `name` of `folder` read and parsed; an empty table (no header) when it does not exist.
// Throws InputError when it cannot be read.
CsvTable read_table(const std::string& folder, const std::string& name);

// results.json of `folder`. Throws InputError when it is missing or no JSON object.
nlohmann::json read_results_json(const std::string& folder);

// The rows of a table as flat objects (its columns, cells read as above).
nlohmann::json table_objects(const CsvTable& table);

// Member `member` of the view (see above) of `folder`, whose results.json is `results`; null when
// the folder has nothing for it. `match`: with "ports", only the ports whose ports.csv columns
// equal these values (a selector's filter), so that one port of a large fabric is cheap.
nlohmann::json results_member(const std::string& folder, const nlohmann::json& results, const std::string& member,
                              const std::vector<std::pair<std::string, std::string>>& match = {});

// results.json with every member above put back: the whole view in one document.
nlohmann::json results_with_tables(const std::string& folder);

// The number a selector (json_select.h) finds in `folder`: in results.json (`results`) first; a
// selector that results.json does not satisfy and that starts with a member of the view, or a
// table's name, is resolved against the tables.
std::optional<double> select_in_results(const std::string& folder, const nlohmann::json& results,
                                        const std::vector<JsonSelectorStep>& steps);

}  // namespace ibfsim
