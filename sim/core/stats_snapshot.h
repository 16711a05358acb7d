// The statistics of a run as plain data, read once from the registry (stats_registry.h) at the end
// of the run: what the writers (sim/report/stat_tables.h) turn into results.json and the CSV
// tables, and what partitions of one run would merge (stats_registry.h, "Partitions").
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>
#include <vector>

#include "sim/core/stat_outputs.h"

namespace ibfsim {

// A statistic's value: absent (nothing to report: omitted from results.json, an empty CSV cell),
// a count, a real figure, text, or a list of real figures (results.json only). Build values with
// to_stat_value (stats_registry.h), which maps every integer type to a count.
using StatValue = std::variant<std::monostate, std::uint64_t, double, std::string, std::vector<double>>;

// The parent of a top-level kind, and of its rows.
constexpr std::size_t kNoStatParent = static_cast<std::size_t>(-1);

// How a statistic of one owner combines with the same statistic of the same owner read in another
// partition of the run.
enum class Merge : std::uint8_t {
  kSum,   // counts and accumulated times
  kMax,   // high-water marks
  kMin,   // low-water marks
  kSame,  // attributes, and figures of an owner that lives in one partition (a port's busy fraction):
          // the values must agree
};

// Where the rows of a kind go in results.json.
enum class Nesting : std::uint8_t {
  kTop,      // rows of their own: the elements of an output's array, or its object (one row)
  kObjects,  // in the parent row's object, member `name`: an array of one object per row (its own
             // keys and its figures); there whenever the parent has rows of this kind
  kMap,      // member `name`: an object from each row's last key to its one figure; rows whose figure
             // is absent are left out, and the object is there even when all are
  kList,     // member `name` (a dotted path): the list of the rows' one figure; absent values are
             // left out, and the member too when all are
};

// One statistic of a kind of owner.
struct StatInfo {
  std::string name;  // results.json key, a dotted path ("rcv_errors.phy_error"); CSV column: the last part
  std::string unit;  // "packets", "bytes", "ns", "fraction", "blocks", ...; empty for attributes
  Merge merge = Merge::kSum;
  StatOutputs outputs = 0;
  int decimals = -1;        // CSV: fixed decimals; -1: shortest text that reads back the same
  bool attribute = false;   // describes its owner (a name, a state) rather than measuring it
};

// A kind of owner (the fabric, ports, VLs, QPs, traffic classes, ...) and its statistics.
struct StatKindInfo {
  std::string name;                 // unique; for a nested kind, the member it goes in (Nesting)
  std::size_t parent = kNoStatParent;  // the kind its rows belong to (a VL's port's)
  Nesting nesting = Nesting::kTop;
  std::vector<std::string> keys;    // what tells its rows apart within their parent ("node", "port")
  std::vector<StatInfo> stats;      // in registration order: the order of CSV columns
};

// One owner's keys and the values of its kind's statistics (values[i] is stats[i]).
struct StatRow {
  std::size_t kind = 0;
  std::size_t parent = kNoStatParent;  // the parent's row, which comes before this one
  std::vector<StatValue> keys;
  std::vector<StatValue> values;
};

// Every kind of owner and every owner's row, as read at one instant.
struct StatsSnapshot {
  std::vector<StatKindInfo> kinds;
  std::vector<StatRow> rows;  // in the order the owners were added
};

}  // namespace ibfsim
