#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "scratch_dir.h"
#include "sim/report/results_json.h"

using namespace ibfsim;
using ibfsim::testing::ScratchDir;

TEST_CASE("results JSON is indented by 2 with sorted keys and a trailing newline", "[report]") {
  ScratchDir dir("json");
  const std::string path = dir.file("results.json");
  nlohmann::json j;
  j["zeta_ns"] = 12.5;
  j["alpha"] = {{"count", 3}, {"name", "fat tree"}};
  j["latency_fs"] = nlohmann::json::array({1, 2});
  write_json_atomically(path, j);
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  CHECK(text.str() ==
        "{\n"
        "  \"alpha\": {\n"
        "    \"count\": 3,\n"
        "    \"name\": \"fat tree\"\n"
        "  },\n"
        "  \"latency_fs\": [\n"
        "    1,\n"
        "    2\n"
        "  ],\n"
        "  \"zeta_ns\": 12.5\n"
        "}\n");
  CHECK(dir.entries() == std::vector<std::string>{"results.json"});
}
