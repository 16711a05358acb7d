// A scenario's `simulation:` block (docs/scenario.md, "Keys"): how the simulation itself runs, which
// never changes its results.
#pragma once
#include <optional>
#include <string>

#include "sim/fabric/yaml_input.h"

namespace ibfsim {

struct SimulationSpec {
  // Partitions of the fabric, each simulated on its own calendar and thread (0: as many as the
  // machine has cores, `auto`). `ibfsim run --threads` overrides it.
  unsigned threads = 1;
};

// Throws InputError naming file:line:col for a bad key or value.
SimulationSpec parse_simulation(const YamlMap& m);

// `threads` as a user gives it (a flag or a key): a number from 1 to kMaxThreads, or `auto` (0).
// nullopt for anything else.
constexpr unsigned kMaxThreads = 1024;
std::optional<unsigned> threads_from_text(const std::string& text);
// The number a run uses: `auto` as the machine's cores (at least 1).
unsigned resolve_threads(unsigned threads);

}  // namespace ibfsim
