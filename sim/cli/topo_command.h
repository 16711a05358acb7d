// `ibfsim topo FILE [--dot OUT] [--ibnetdiscover OUT] [--ibsim OUT] [--yaml OUT]`: reads a topology in any
// format topology_loader.h knows, prints its summary (topology_summary.h) and writes it in the
// formats asked for. Bad input is an InputError (exit code 2 in main).
#pragma once
#include <CLI/CLI.hpp>

#include <ostream>
#include <string>

namespace ibfsim {

struct TopoOptions {
  std::string file;
  std::string dot_out;
  std::string ibnetdiscover_out;
  std::string ibsim_out;
  std::string yaml_out;
};

// Adds the `topo` subcommand to `app`, filling `opts` when it is parsed.
CLI::App* add_topo_subcommand(CLI::App& app, TopoOptions& opts);

// Loads opts.file, prints the summary to `out`, writes the requested files (each atomically).
// Returns the exit code (0).
int run_topo_command(const TopoOptions& opts, std::ostream& out);

}  // namespace ibfsim
