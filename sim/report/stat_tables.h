// The statistics of a run as their outputs give them (stat_outputs.h): the CSV tables, and the
// arrays and objects of results.json, written from a snapshot of the registry (stats_registry.h).
//
// A row of a kind with figures (statistics that are not attributes) in an output appears in it only
// when at least one of those figures has a value: a getter hides a row by returning nothing (a
// port's discards of a reason it never dropped for, a window not complete). The rows of a kind
// with only attributes in an output always appear. Absent values are empty CSV cells and are left
// out of results.json.
#pragma once
#include <nlohmann/json.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>

#include "sim/core/stats_registry.h"
#include "sim/core/stats_snapshot.h"

namespace ibfsim {

// The CSV table of `output`: a header (the keys of the output's one kind and of its parents, then
// the columns of its statistics in `output`, in registration order: the last part of each
// statistic's name), then one line per row shown, in the order the rows were added. Numbers print
// in their shortest round-trip form unless a statistic asks for fixed decimals; a list prints its
// numbers separated by spaces in one cell; text is written as it is, quoted when it holds a comma or
// a quote (csv_text.h). Each line (ended by '\n') goes to `sink` as it is made, so that a table of
// any size costs one line of memory; returns the rows written (the header aside).
std::uint64_t write_stats_csv(const StatsSnapshot& snapshot, StatOutput output,
                              const std::function<void(std::string_view)>& sink);
// The same table read from the registry row by row (StatsRegistry::read_rows): no snapshot of the
// whole table is made, so that the tables of a large fabric cost no memory to write.
std::uint64_t write_stats_csv(const StatsRegistry& registry, StatOutput output,
                              const std::function<void(std::string_view)>& sink);
// The same table as one string (small tables, tests).
std::string stats_csv(const StatsSnapshot& snapshot, StatOutput output);
// Whether any statistic of these kinds is registered for `output` (its table is written), and how
// many rows a snapshot's table has.
bool has_stats_output(const std::vector<StatKindInfo>& kinds, StatOutput output);
std::uint64_t stats_csv_rows(const StatsSnapshot& snapshot, StatOutput output);

// The rows of the top-level kinds with statistics in `output`, as an array of objects: each row's
// keys and figures at their dotted paths, with its nested rows (Nesting) inside.
nlohmann::json stats_json_array(const StatsSnapshot& snapshot, StatOutput output);

// Writes the figures of `output`'s top-level rows into `object`, at their dotted paths (for the
// figures of the fabric as a whole, one row).
void add_stats_json(const StatsSnapshot& snapshot, StatOutput output, nlohmann::json& object);

}  // namespace ibfsim
