// Topology YAML (topologies/README.md): parse_topology on any text.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/fabric/yaml_input.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ibfsim::fuzz::expect_input_errors_only(
      [&] { ibfsim::parse_topology(ibfsim::parse_yaml_text(text, "fuzz.yaml"), "fuzz.yaml"); }, !ibfsim::fuzz::has_nul(data, size));
  return 0;
}
