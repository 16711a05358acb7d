// Scenario YAML (docs/scenario.md): parse_scenario on any text, as `ibfsim run` reads it, topology
// included. The scenario sits in a sandbox folder whose topologies/ links to the repository's, so
// that the seeds' relative topology paths resolve: ../topologies/x.yaml (scenarios/) and
// ../../../topologies/x.yaml (tests/scenarios/data/), and the data files beside it.
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <filesystem>
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/fabric/yaml_input.h"
#include "sim/workload/scenario.h"

namespace fs = std::filesystem;

namespace {

std::string sandbox_scenario_path() {
  const fs::path root = fs::temp_directory_path() / ("ibfsim-fuzz-scenario-" + std::to_string(::getpid()));
  const fs::path here = root / "a" / "b" / "c";
  fs::create_directories(here);
  const fs::path topologies = fs::path(IBFSIM_SOURCE_DIR) / "topologies";
  std::error_code ec;
  fs::create_directory_symlink(topologies, root / "topologies", ec);
  fs::create_directory_symlink(topologies, root / "a" / "b" / "topologies", ec);
  for (const auto& e : fs::directory_iterator(fs::path(IBFSIM_SOURCE_DIR) / "tests" / "scenarios" / "data"))
    fs::create_symlink(e.path(), here / e.path().filename(), ec);
  return (here / "scenario.yaml").string();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  static const std::string path = sandbox_scenario_path();
  const std::string text(reinterpret_cast<const char*>(data), size);
  ibfsim::fuzz::expect_input_errors_only([&] { ibfsim::parse_scenario(ibfsim::parse_yaml_text(text, path), path); }, !ibfsim::fuzz::has_nul(data, size));
  return 0;
}
