#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/subnet_manager/routing/guid_list_file.h"

using namespace ibfsim;

TEST_CASE("GUID list files read as OpenSM reads root_guid_file and cn_guid_file", "[subnet_manager][ftree]") {
  // strtoull with base 0: hex with 0x, octal with a leading 0, decimal; a name after the GUID, '#'
  // comments and blank lines skipped; leading white space allowed.
  const auto guids = parse_guid_list("# roots\n0x0002c90300000011 spine1\n\n  0X1f\t# a comment\n010\n42#x\n", "r.txt");
  CHECK(guids == std::vector<Guid>{0x0002c90300000011ull, 0x1f, 8, 42});
  CHECK_THROWS_WITH(parse_guid_list("0x11\nspine2\n", "r.txt"),
                    "r.txt:2:1: expected a GUID (0x followed by hex digits, or a decimal number), optionally followed "
                    "by a name, got 'spine2'");
  CHECK_THROWS_WITH(parse_guid_list("  0x11z\n", "r.txt"),
                    "r.txt:1:3: expected a GUID (0x followed by hex digits, or a decimal number), optionally followed "
                    "by a name, got '0x11z'");
  CHECK_THROWS_WITH(parse_guid_list("0x1ffffffffffffffff\n", "r.txt"),
                    "r.txt:1:1: expected a GUID (0x followed by hex digits, or a decimal number), optionally followed "
                    "by a name, got '0x1ffffffffffffffff'");
  CHECK_THROWS_WITH(parse_guid_list("# nothing\n\n", "r.txt"), "r.txt: expected at least one GUID, got none");
  CHECK_THROWS_WITH(read_guid_list_file("/no/such/file"), "/no/such/file: expected a readable GUID list file, cannot open it");
}
