#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("a 32-host fat tree at 90% uniform load for 1 ms drops nothing and keeps every credit invariant",
          "[scenarios][fat_tree]") {
  const std::string out = scratch_dir("fat_tree_90");
  CommandResult r = run_ibfsim("run " + data_path("fat_tree_90.yaml") + " -o " + out);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);  // a broken credit or ledger invariant would end the run with 1
  auto j = results_and_tables(out);
  CHECK(j["topology"]["hcas"] == 32);
  CHECK(j["topology"]["switches"] == 12);
  CHECK(j["packets"]["dropped_total"] == 0);
  CHECK(j["phases"]["drained"] == true);
  CHECK(j["packets"]["created"] == j["packets"]["delivered"]);
  // 32 hosts x 90% x 1 ms of 2 KiB packets (169 ns each) is ~170,000 packets.
  CHECK(j["flows"][0]["latency"]["count"].get<std::uint64_t>() > 150000);
  // Receive buffers never exceeded their size (checked on every arrival) and were really used.
  std::uint64_t max_blocks = 0;
  for (const auto& p : j["ports"])
    for (const auto& v : p["vls"]) max_blocks = std::max<std::uint64_t>(max_blocks, v["rx_buffer_max_blocks"]);
  CHECK(max_blocks > 33);
  CHECK(max_blocks <= 256);
}
