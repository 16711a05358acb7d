// A results folder's tables read back (report/results_view.h: `ibfsim collect`'s metrics, the
// Python package): a table's bytes, zstd-compressed (outputs.compress) when they start with zstd's
// magic number, else CSV text, parsed and turned into objects. A folder may come from another
// machine or a run cut short.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

#include "fuzz/fuzz_support.h"
#include "sim/report/csv_text.h"
#include "sim/report/results_view.h"
#include "sim/report/table_file.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  ibfsim::fuzz::expect_input_errors_only(
      [&] {
        const std::string text = bytes.substr(0, 4) == std::string_view("\x28\xb5\x2f\xfd", 4)
                                     ? ibfsim::decompress_table(bytes, "fuzz.csv.zst")
                                     : std::string(bytes);
        (void)ibfsim::table_objects(ibfsim::parse_csv(text, "fuzz.csv"));
      },
      !ibfsim::fuzz::has_nul(data, size));
  return 0;
}
