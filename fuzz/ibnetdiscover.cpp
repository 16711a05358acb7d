// ibnetdiscover output (topologies/README.md, "Other formats"): format detection, then the reader.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/fabric/ibnetdiscover_format.h"
#include "sim/fabric/topology_loader.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  (void)ibfsim::detect_topology_format(text);
  ibfsim::fuzz::expect_input_errors_only([&] { ibfsim::parse_ibnetdiscover(text, "fuzz.ibnd"); }, !ibfsim::fuzz::has_nul(data, size));
  return 0;
}
