// `ibfsim routes`: subnet manager bring-up only, printing what the SM computed (routes_report.h).
//   ibfsim routes --topology FILE --routing ENGINE [--lmc N] [--sm-host NAME] [--root NAME...]
//                 [--lft-file DUMP] [--guid2lid] [--deadlock-check] [--no-lfts]
// computes LIDs and routes offline from a topology file in any format ibfsim reads, as an SM on
// the given host would after discovering the fabric.
//   ibfsim routes SCENARIO [--set key=value ...] [--threads N] [--routing ENGINE] [--lmc N] [--sm-host NAME]
//                 [--root NAME...] [--lft-file DUMP] [--guid2lid] [--deadlock-check] [--no-lfts]
// runs the scenario's in-band bring-up only (the SM discovers the simulated fabric with SMPs and
// programs it) and prints the same report, with the LFTs read back from the switches. There the
// routing options override the scenario's subnet_manager settings.
#pragma once
#include <CLI/CLI.hpp>

#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace ibfsim {

struct RoutesOptions {
  std::string scenario;
  std::string topology;
  std::string routing;             // empty: minhop, or the scenario's
  std::optional<unsigned> lmc;     // unset: 0, or the scenario's
  std::vector<std::string> sets;   // scenario overrides, key=value
  std::string sm_host;             // default: the first HCA (declaration order) with a cabled port
  std::vector<std::string> roots;  // updn and ftree root switches, by name
  std::string root_guid_file;      // ... or by GUID in OpenSM's root_guid_file format (-a)
  std::string cn_guid_file;        // ftree compute nodes, OpenSM's cn_guid_file format (-u)
  std::string lft_file;            // routing "file": the dump to load
  std::string threads;              // --threads as given (SCENARIO only): the bring-up's partitions
  std::optional<unsigned> nue_max_vls;  // nue: OpenSM's nue_max_num_vls (unset: 1, or the scenario's)
  bool path_sls = false;
  bool guid2lid = false;
  bool deadlock_check = false;
  bool ar_groups = false;
  bool no_lfts = false;
};

CLI::App* add_routes_subcommand(CLI::App& app, RoutesOptions& opts);

// Prints the report to `out` and the engine's notes ("note: ...") to `err`. Returns the exit code
// (0); bad input is an InputError.
int run_routes_command(const RoutesOptions& opts, std::ostream& out, std::ostream& err);

}  // namespace ibfsim
