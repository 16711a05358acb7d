// `--set key=value` (and sweep values key=a,b,c / lo:hi:step): up to four assignments, one per
// line, applied to scenarios/quickstart.yaml, then the scenario is read as `ibfsim run` would.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/fabric/yaml_input.h"
#include "sim/workload/scenario.h"
#include "sim/workload/sweep_plan.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Command-line arguments cannot hold a NUL byte.
  if (ibfsim::fuzz::has_nul(data, size)) return 0;
  static const std::string path = std::string(IBFSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  static const YAML::Node pristine = ibfsim::load_yaml_file(path);
  ibfsim::forget_override_values();
  std::istringstream lines(std::string(reinterpret_cast<const char*>(data), size));
  ibfsim::fuzz::expect_input_errors_only([&] {
    YAML::Node root = YAML::Clone(pristine);
    std::string line;
    for (int n = 0; n < 4 && std::getline(lines, line); ++n) {
      const auto [key, value] = ibfsim::split_override(line);
      (void)ibfsim::sweep_values(key, value);
      ibfsim::apply_override(root, key, value);
    }
    ibfsim::parse_scenario(root, path);
  });
  return 0;
}
