// Sweep values and points: ranges, lists, their product, and quoting for the printed commands.
#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/workload/sweep_plan.h"

using namespace ibfsim;

TEST_CASE("a range lo:hi:step lists lo, lo+step, ... up to hi with the decimals typed", "[workload][sweep]") {
  const auto v = sweep_values("workload.load", "0.1:0.95:0.05");
  REQUIRE(v.size() == 18);  // (0.95 - 0.1) / 0.05 + 1
  CHECK(v.front() == "0.1");
  CHECK(v[1] == "0.15");
  CHECK(v[9] == "0.55");
  CHECK(v.back() == "0.95");
  CHECK(sweep_values("k", "1:8:1") == std::vector<std::string>{"1", "2", "3", "4", "5", "6", "7", "8"});
  CHECK(sweep_values("k", "0:1:0.25") == std::vector<std::string>{"0", "0.25", "0.5", "0.75", "1"});
  // hi is included only when reached: 0.1, 0.4, 0.7 (1.0 would pass 0.9).
  CHECK(sweep_values("k", "0.1:0.9:0.3") == std::vector<std::string>{"0.1", "0.4", "0.7"});
  CHECK(sweep_values("k", "-2:2:2") == std::vector<std::string>{"-2", "0", "2"});
  // Ranges and single values mix in a list.
  CHECK(sweep_values("k", "0.01,0.1:0.3:0.1,1") == std::vector<std::string>{"0.01", "0.1", "0.2", "0.3", "1"});
}

TEST_CASE("a list a,b,c keeps its values as typed, brackets keep commas inside one value", "[workload][sweep]") {
  CHECK(sweep_values("k", "uniform,transpose,bit_complement") ==
        std::vector<std::string>{"uniform", "transpose", "bit_complement"});
  CHECK(sweep_values("k", "[1,2],[3]") == std::vector<std::string>{"[1,2]", "[3]"});
  CHECK(sweep_values("k", "100us") == std::vector<std::string>{"100us"});
  CHECK(sweep_values("k", "{a: 1, b: 2}") == std::vector<std::string>{"{a: 1, b: 2}"});
}

TEST_CASE("bad sweep values are input errors", "[workload][sweep]") {
  CHECK_THROWS_AS(sweep_values("k", ""), InputError);
  CHECK_THROWS_AS(sweep_values("k", "0.5:0.1:0.1"), InputError);  // lo > hi
  CHECK_THROWS_AS(sweep_values("k", "0.1:0.5:0"), InputError);    // step 0
  CHECK_THROWS_AS(sweep_values("k", "0.1:x:0.1"), InputError);
  CHECK_THROWS_AS(sweep_values("k", "a,,b"), InputError);
  CHECK_THROWS_AS(sweep_values("k", "0:1e9:1"), InputError);  // too many points
}

TEST_CASE("sweep points are the product of the axes, the first slowest", "[workload][sweep]") {
  const auto p = sweep_points({{"a", {"1", "2"}}, {"b", {"x", "y", "z"}}});
  REQUIRE(p.size() == 6);
  CHECK(p[0].sets == std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "x"}});
  CHECK(p[2].sets == std::vector<std::pair<std::string, std::string>>{{"a", "1"}, {"b", "z"}});
  CHECK(p[3].sets == std::vector<std::pair<std::string, std::string>>{{"a", "2"}, {"b", "x"}});
  CHECK(p[5].index == 5);
  CHECK(sweep_point_dir(7) == "points/p0007");
  CHECK(sweep_point_dir(12345) == "points/p12345");
}

TEST_CASE("shell quoting leaves safe words alone and single-quotes the rest", "[workload][sweep]") {
  CHECK(shell_quote("/usr/bin/ibfsim") == "/usr/bin/ibfsim");
  CHECK(shell_quote("workload.load=0.5") == "workload.load=0.5");
  CHECK(shell_quote("a b") == "'a b'");
  CHECK(shell_quote("it's") == "'it'\\''s'");
  CHECK(shell_quote("[1,2]") == "'[1,2]'");
  CHECK(shell_quote("") == "''");
}

TEST_CASE("sweep --slurm: a job array of one task per point, resources as its #SBATCH lines", "[workload][sweep][slurm]") {
  SlurmOptions o;
  o.time = "0:10:00";
  o.mem = "1G";
  o.partition = "debug";
  o.max_running = 2;
  o.extra = {"--qos=short"};
  const std::string s = slurm_script(o, "/data/my sweep", "/data/my sweep/commands.txt", 5, "ibfsim-uniform");
  CHECK(s.rfind("#!/bin/bash\n", 0) == 0);
  for (const char* line : {"#SBATCH --job-name=ibfsim-uniform\n", "#SBATCH --array=0-4%2\n", "#SBATCH --cpus-per-task=1\n",
                           "#SBATCH --time=0:10:00\n", "#SBATCH --mem=1G\n", "#SBATCH --partition=debug\n",
                           "#SBATCH --qos=short\n", "#SBATCH --output='/data/my sweep/points/p%4a/run.log'\n",
                           "line=$(sed -n \"$((SLURM_ARRAY_TASK_ID + 1))p\" '/data/my sweep/commands.txt')\n",
                           "eval \"exec $line\"\n"}) {
    INFO(line);
    CHECK(s.find(line) != std::string::npos);
  }
  CHECK(s.find("--account") == std::string::npos);  // not given: the cluster's default
  // Every #SBATCH line comes before the first command (sbatch stops reading them there).
  CHECK(s.rfind("#SBATCH") < s.find("set -euo pipefail"));
}
