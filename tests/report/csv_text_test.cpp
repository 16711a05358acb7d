#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/report/csv_text.h"

using namespace ibfsim;

TEST_CASE("csv: cells quoted only when they need it, and read back", "[report][csv]") {
  std::string line;
  append_csv_cell(line, "sw1/3");
  line += ',';
  append_csv_cell(line, "a,b");
  line += ',';
  append_csv_cell(line, "say \"hi\"");
  line += ',';
  append_csv_cell(line, "");
  CHECK(line == "sw1/3,\"a,b\",\"say \"\"hi\"\"\",");
  const CsvTable t = parse_csv("w,x,y,z\n" + line + "\n1,2,3,4", "t.csv");
  CHECK(t.header == std::vector<std::string>{"w", "x", "y", "z"});
  REQUIRE(t.rows.size() == 2);
  CHECK(t.rows[0] == std::vector<std::string>{"sw1/3", "a,b", "say \"hi\"", ""});
  CHECK(t.rows[1] == std::vector<std::string>{"1", "2", "3", "4"});  // a last line without '\n'
  CHECK(t.column("y") == 2u);
  CHECK_FALSE(t.column("v"));
  CHECK(parse_csv("", "e.csv").header.empty());
  CHECK_THROWS_WITH(parse_csv("a,b\n1\n", "t.csv"), "t.csv:2: expected 2 cells as in the header, got 1");
  CHECK_THROWS_WITH(parse_csv("a\n\"open\n", "t.csv"), "t.csv:2: expected a closing '\"', got the end of the file");
}
