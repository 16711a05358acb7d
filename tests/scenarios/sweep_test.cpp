// `ibfsim sweep` and `ibfsim collect`: the same curve however the points are run, plots that are
// real PNG and SVG files, and the plan's commands self-contained.
#include <catch2/catch.hpp>

#include <filesystem>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const std::string kSweep = " --set workload.load=0.2,0.6,1.0";

std::string abs_dir(const std::string& name) { return std::filesystem::absolute(scratch_dir(name)).string(); }

}  // namespace

TEST_CASE("sweep -j 2 writes the same curve.csv as -j 1, and --plan --threads 2 then collect writes it too",
          "[scenarios][sweep]") {
  const std::string j1 = abs_dir("sweep_j1"), j2 = abs_dir("sweep_j2"), plan = abs_dir("sweep_plan");
  const CommandResult r1 = run_ibfsim("sweep " + data_path("sweep_uniform.yaml") + kSweep + " -j 1 -o " + j1);
  INFO(r1.output);
  REQUIRE(r1.exit_code == 0);
  const CommandResult r2 = run_ibfsim("sweep " + data_path("sweep_uniform.yaml") + kSweep + " -j 2 -o " + j2);
  INFO(r2.output);
  REQUIRE(r2.exit_code == 0);
  // --plan runs nothing: it prints one command per point (stdout only; the hint goes to stderr).
  // --threads is passed on to every point's run, whose results are the same with any number.
  const CommandResult p = run_command(std::string("(SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 ") + IBFSIM_BINARY + " sweep " +
                                      data_path("sweep_uniform.yaml") + kSweep + " --plan --threads 2 -o " + plan +
                                      " 2>/dev/null)");
  REQUIRE(p.exit_code == 0);
  CHECK_FALSE(std::filesystem::exists(plan + "/points"));
  std::vector<std::string> commands;
  std::istringstream lines(p.output);
  for (std::string line; std::getline(lines, line);) commands.push_back(line);
  REQUIRE(commands.size() == 3);
  // Each command runs on its own, from any folder (absolute paths), as a job array would.
  for (const std::string& c : commands) {
    CHECK(c.rfind(std::string(IBFSIM_BINARY) + " run /", 0) == 0);
    CHECK(c.size() > 12);
    CHECK(c.compare(c.size() - 12, 12, " --threads 2") == 0);
    const CommandResult one = run_command("cd / && " + c);
    INFO(one.output);
    CHECK(one.exit_code == 0);
  }
  const CommandResult col = run_ibfsim("collect " + plan);
  INFO(col.output);
  REQUIRE(col.exit_code == 0);
  const std::string curve = read_file(j1 + "/curve.csv");
  CHECK(curve.find("point,workload.load,status,offered_load") == 0);
  CHECK(std::count(curve.begin(), curve.end(), '\n') == 4);
  CHECK(read_file(j2 + "/curve.csv") == curve);
  CHECK(read_file(plan + "/curve.csv") == curve);
  CHECK(read_file(j2 + "/saturation.json") == read_file(j1 + "/saturation.json"));
  CHECK(read_file(plan + "/saturation.json") == read_file(j1 + "/saturation.json"));
}

TEST_CASE("sweep plots are non-empty PNG files and SVG documents", "[scenarios][sweep]") {
  const std::string dir = abs_dir("sweep_plots");
  const CommandResult r = run_ibfsim("sweep " + data_path("sweep_uniform.yaml") + kSweep + " -j 2 -o " + dir);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  for (const char* name : {"latency", "throughput"}) {
    const std::string png = read_file(dir + "/" + name + ".png");
    REQUIRE(png.size() > 1000);
    CHECK(png.compare(0, 8, std::string("\x89PNG\r\n\x1a\n", 8)) == 0);  // the PNG signature
    const std::string svg = dir + "/" + name + ".svg";
    REQUIRE(read_file(svg).size() > 1000);
    // Parses as XML and its root element is <svg> (in the SVG namespace).
    const CommandResult x = run_command("python3 -c \"import xml.etree.ElementTree as E, sys; r = E.parse('" + svg +
                                        "').getroot(); sys.exit(0 if r.tag in ('svg', '{http://www.w3.org/2000/svg}svg') else 1)\"");
    INFO(x.output);
    CHECK(x.exit_code == 0);
  }
}

TEST_CASE("sweep and collect input errors exit with code 2", "[scenarios][sweep][input]") {
  const std::string dir = abs_dir("sweep_bad");
  // Nothing to sweep: every --set has one value.
  CommandResult r = run_ibfsim("sweep " + data_path("sweep_uniform.yaml") + " --set workload.load=0.5 -o " + dir);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("several values") != std::string::npos);
  r = run_ibfsim("sweep " + data_path("sweep_uniform.yaml") + " --set workload.load=0.9:0.1:0.1 -o " + dir);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("lo <= hi") != std::string::npos);
  // A swept value the scenario rejects is found before anything runs.
  r = run_ibfsim("sweep " + data_path("sweep_uniform.yaml") + " --set workload.load=0.5:1.5:0.5 -o " + dir);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("(0, 1]") != std::string::npos);
  CHECK_FALSE(std::filesystem::exists(dir + "/points"));
  r = run_ibfsim("sweep " + data_path("sweep_uniform.yaml") + kSweep + " --threads many -o " + dir);
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--threads many: expected a number of threads from 1 to 1024, or auto") != std::string::npos);
  r = run_ibfsim("collect " + dir + "/nothing_here");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("sweep.json") != std::string::npos);
}
