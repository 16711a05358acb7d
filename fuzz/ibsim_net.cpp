// OFED ibsim net files (topologies/README.md, "Other formats").
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/fabric/ibsim_format.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  ibfsim::fuzz::expect_input_errors_only([&] { ibfsim::parse_ibsim(text, "fuzz.net"); }, !ibfsim::fuzz::has_nul(data, size));
  return 0;
}
