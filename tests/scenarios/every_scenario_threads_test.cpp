// Every scenario of scenarios/, as a user runs it, writes the same bytes at 1, 2, 3 and 4 threads:
// the claim partition_determinism_test.cpp checks quickly on a few, made for all of them. Minutes
// of CPU: label long (`ctest -L long -R every_scenario`).
#include <catch2/catch.hpp>

#include <filesystem>
#include <set>
#include <string>

#include "tests/support/same_at_any_split.h"

using namespace ibfsim::test;

TEST_CASE("partitions: every scenario in scenarios/ the same at 1, 2, 3 and 4 threads", "[scenarios][partitions][long]") {
  // Each ends with exit status 0, but pfc_deadlock.yaml: its ring deadlocks (4).
  const std::set<std::string> deadlocks = {"pfc_deadlock.yaml"};
  std::set<std::string> names;
  for (const auto& e : std::filesystem::directory_iterator(std::string(IBFSIM_SOURCE_DIR) + "/scenarios"))
    if (e.path().extension() == ".yaml") names.insert(e.path().filename().string());
  REQUIRE(names.size() >= 30);
  for (const std::string& n : names) {
    SECTION(n) {
      check_same_at_any_split("every_" + n.substr(0, n.size() - 5), std::string(IBFSIM_SOURCE_DIR) + "/scenarios/" + n,
                              1, deadlocks.count(n) ? 4 : 0);
    }
  }
}
