// OpenSM LFT dumps (opensm-lfts.dump, read by `routing: file` and `ibfsim routes --lft-file`).
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <sstream>
#include <string>

#include "fuzz/fuzz_support.h"
#include "sim/subnet_manager/routing/ucast_lft_dump.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::istringstream in(std::string(reinterpret_cast<const char*>(data), size));
  ibfsim::fuzz::expect_input_errors_only([&] { ibfsim::parse_ucast_lft_dump(in, "fuzz.dump"); }, !ibfsim::fuzz::has_nul(data, size));
  return 0;
}
