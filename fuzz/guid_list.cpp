// GUID list files (OpenSM's root_guid_file, cn_guid_file and io_guid_file format: `ibfsim routes
// --root-guid-file`, `subnet_manager.root_guid_file`, ...): parse_guid_list on any text. ibfsim
// writes OpenSM's guid2lid cache but reads none; guid2lid lines (GUID, then LIDs) are GUID-list
// lines too and are among the seeds.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "sim/subnet_manager/routing/guid_list_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  ibfsim::fuzz::expect_input_errors_only([&] { (void)ibfsim::parse_guid_list(text, "fuzz.guids"); },
                                         !ibfsim::fuzz::has_nul(data, size));
  return 0;
}
