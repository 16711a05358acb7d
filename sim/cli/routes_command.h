// `ibfsim routes`: subnet manager bring-up only, printing what the SM computed (routes_report.h).
//   ibfsim routes --topology FILE --routing ENGINE [--lmc N] [--sm-host NAME] [--root NAME...]
//                 [--lft-file DUMP] [--guid2lid] [--deadlock-check] [--no-lfts]
// computes LIDs and routes offline from a topology file in any format ibfsim reads, as an SM on
// the given host would after discovering the fabric. `ibfsim routes SCENARIO` is to run the
// in-band bring-up of a scenario (not available yet: an InputError says so).
#pragma once
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>
#include <vector>

namespace ibfsim {

struct RoutesOptions {
  std::string scenario;
  std::string topology;
  std::string routing = "minhop";
  unsigned lmc = 0;
  std::string sm_host;             // default: the first HCA (declaration order) with a cabled port
  std::vector<std::string> roots;  // updn root switches, by name
  std::string lft_file;            // routing "file": the dump to load
  bool guid2lid = false;
  bool deadlock_check = false;
  bool no_lfts = false;
};

CLI::App* add_routes_subcommand(CLI::App& app, RoutesOptions& opts);

// Prints the report to `out` and the engine's notes ("note: ...") to `err`. Returns the exit code
// (0); bad input is an InputError.
int run_routes_command(const RoutesOptions& opts, std::ostream& out, std::ostream& err);

}  // namespace ibfsim
