#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("the same scenario and seed give a byte-identical results.json, another seed changes it",
          "[scenarios][determinism]") {
  const std::string a = scratch_dir("det_a"), b = scratch_dir("det_b"), c = scratch_dir("det_c");
  REQUIRE(run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + a).exit_code == 0);
  REQUIRE(run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + b).exit_code == 0);
  REQUIRE(run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + c + " --seed 8").exit_code == 0);
  const std::string ra = read_file(a + "/results.json"), rb = read_file(b + "/results.json"),
                    rc = read_file(c + "/results.json");
  REQUIRE(ra.size() > 100);
  CHECK(ra == rb);
  CHECK(read_file(a + "/ports.csv") == read_file(b + "/ports.csv"));
  CHECK(ra != rc);
  auto ja = nlohmann::json::parse(ra), jc = nlohmann::json::parse(rc);
  CHECK(ja["seed"] == 7);
  CHECK(jc["seed"] == 8);
  CHECK(ja["packets"]["created"] != jc["packets"]["created"]);
}
