// Errors name the file (and line:column where there is one) or the flag, say what was expected,
// and exit with code 2 for bad input; a result that cannot be written exits 3 naming the file
// (issue "Hardening": no vague errors). One test per case.
#include <catch2/catch.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const std::string kTopologies = std::string(IBFSIM_SOURCE_DIR) + "/topologies/";

std::string scenario_with_topology(const std::string& dir, const std::string& topology) {
  const std::string path = dir + "/s.yaml";
  std::ofstream(path) << "topology: " << topology << "\n";
  return path;
}

}  // namespace

TEST_CASE("vague: a device or an endless pipe given as topology is refused, not read until memory runs out",
          "[scenarios][input][vague]") {
  const std::string dir = scratch_dir("vague_special");
  CommandResult r = run_ibfsim("topo /dev/zero");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: /dev/zero: expected a topology file (YAML, ibnetdiscover or ibsim), got a character device\n");
  const std::string s = scenario_with_topology(dir, "/dev/urandom");
  r = run_ibfsim("run " + s + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: /dev/urandom: expected a topology file (YAML, ibnetdiscover or ibsim), got a character device\n");
  // A pipe is read (`<(command)` works), up to a size no real input comes near.
  r = run_command("yes | SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " + std::string(IBFSIM_BINARY) + " topo /dev/stdin");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: /dev/stdin: expected a topology file (YAML, ibnetdiscover or ibsim), got a pipe with more "
                    "than 256 MiB\n");
  r = run_command("cat " + kTopologies + "two_hosts.yaml | SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " +
                  std::string(IBFSIM_BINARY) + " topo /dev/stdin");
  CHECK(r.exit_code == 0);
}

TEST_CASE("vague: a folder given as a file names the folder", "[scenarios][input][vague]") {
  const std::string dir = scratch_dir("vague_folder");
  std::filesystem::create_directories(dir + "/sub");
  CommandResult r = run_ibfsim("run " + dir + "/sub -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/sub: expected a scenario file, got a folder\n");
  r = run_ibfsim("topo " + dir + "/sub");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/sub: expected a topology file (YAML, ibnetdiscover or ibsim), got a folder\n");
  const std::string s = scenario_with_topology(dir, dir + "/sub");
  r = run_ibfsim("run " + s + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + s + ":1:11: expected the path of a topology file, got '" + dir + "/sub' (a folder)\n");
  r = run_ibfsim("routes --topology " + kTopologies + "two_hosts.yaml --routing file --lft-file " + dir + "/sub");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/sub: expected an LFT dump (OpenSM's opensm-lfts.dump format), got a folder\n");
  r = run_ibfsim("topo " + kTopologies + "two_hosts.yaml --dot " + dir + "/sub");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::EndsWith("error: --dot " + dir + "/sub: expected a file to write the Graphviz DOT to, got a folder\n"));
  r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml -o " + dir + "/out2 --event-trace " + dir + "/sub");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: --event-trace " + dir + "/sub: expected a file to write, got a folder\n");
  r = run_ibfsim("collect " + s);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + s + ": expected a sweep folder (holding sweep.json), got a file\n");
}

TEST_CASE("vague: -o at a file or at a place that cannot be written exits 2 naming the flag", "[scenarios][input][vague]") {
  const std::string dir = scratch_dir("vague_output");
  std::ofstream(dir + "/file") << "x\n";
  const std::string run = "run " + data_path("small_uniform.yaml") + " -o ";
  CommandResult r = run_ibfsim(run + dir + "/file");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: -o " + dir + "/file: expected a folder for the results, got a regular file\n");
  r = run_ibfsim(run + dir + "/file/sub");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: -o " + dir + "/file/sub: expected a folder for the results that can be created, got " +
                        dir + "/file, a regular file, in its path\n");
  // /proc takes no new folders (root or not).
  r = run_ibfsim(run + "/proc/ibfsim-results");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::StartsWith("error: -o /proc/ibfsim-results: expected a folder for the results that can be "
                                         "created, got: "));
  CHECK(r.output.find("filesystem error") == std::string::npos);
  // A folder without write permission (root may write anywhere: then this part proves nothing).
  std::filesystem::create_directories(dir + "/ro");
  chmod((dir + "/ro").c_str(), 0555);
  if (geteuid() != 0) {
    r = run_ibfsim(run + dir + "/ro");
    CHECK(r.exit_code == 2);
    CHECK(r.output == "error: -o " + dir + "/ro: expected a folder for the results that ibfsim can write, got: "
                      "Permission denied\n");
  }
  chmod((dir + "/ro").c_str(), 0755);
  r = run_ibfsim("sweep " + data_path("small_uniform.yaml") + " --set workload.load=0.1,0.2 --plan -o " + dir + "/file");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: -o " + dir + "/file: expected a folder for the results, got a regular file\n");
}

TEST_CASE("vague: a malformed sweep.json in collect names the file and what is wrong", "[scenarios][input][vague]") {
  const std::string dir = scratch_dir("vague_sweep_json");
  std::ofstream(dir + "/sweep.json") << "{\n  \"keys\": [\"workload.load\"],\n  \"points\": [,]\n}\n";
  CommandResult r = run_ibfsim("collect " + dir);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/sweep.json:3:14: expected valid JSON (the sweep.json that ibfsim sweep writes), "
                    "got a syntax error\n");
  std::ofstream(dir + "/sweep.json") << R"({"keys": ["workload.load"], "scenario": "s.yaml", "points": [{"values": [0.5], "dir": "p"}],
                                          "criteria": {"accepted_drop": 0.05, "latency_factor": 10}})";
  r = run_ibfsim("collect " + dir);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/sweep.json: points[0].values: expected a list of strings (the sweep.json that "
                    "ibfsim sweep writes)\n");
  std::ofstream(dir + "/sweep.json") << R"({"keys": ["workload.load"], "scenario": "s.yaml", "points": [{"values": ["0.5"], "dir": "../../etc"}],
                                          "criteria": {"accepted_drop": 0.05, "latency_factor": 10}})";
  r = run_ibfsim("collect " + dir);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/sweep.json: points[0].dir: expected a folder inside the sweep folder (the "
                    "sweep.json that ibfsim sweep writes)\n");
  std::ofstream(dir + "/sweep.json") << "[1, 2]";
  r = run_ibfsim("collect " + dir);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/sweep.json: expected a JSON object (the sweep.json that ibfsim sweep writes)\n");
  CHECK(r.output.find("json.exception") == std::string::npos);
}

TEST_CASE("vague: without a --set, no error mentions --set", "[scenarios][input][vague]") {
  const std::string dir = scratch_dir("vague_no_set");
  std::ofstream(dir + "/empty.yaml") << "# nothing but a comment\n";
  CommandResult r = run_ibfsim("run " + dir + "/empty.yaml -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/empty.yaml: expected a scenario (a map with at least topology), got an empty file\n");
  // An empty list item (a node without a position of its own) and --seed (applied like a --set).
  std::ofstream(dir + "/s.yaml") << "topology: " << kTopologies << "two_hosts.yaml\nworkload:\n  -\n";
  r = run_ibfsim("run " + dir + "/s.yaml --seed 3 -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find("--set") == std::string::npos);
  // With a --set, its errors still say so.
  r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out --set workload.0.load=2");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + dir + "/s.yaml (--set on the command line): expected a load in (0, 1], got '2'\n");
}

TEST_CASE("vague: an unknown subcommand is named", "[scenarios][input][vague]") {
  CommandResult r = run_ibfsim("frobnicate x.yaml");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: unknown subcommand 'frobnicate': expected run, sweep, collect, topo or routes (ibfsim --help)\n");
  r = run_ibfsim("");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: expected a subcommand: run, sweep, collect, topo or routes (ibfsim --help)\n");
  r = run_ibfsim("--bogus");
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: unknown option '--bogus': expected a subcommand first: run, sweep, collect, topo or routes "
                    "(ibfsim --help)\n");
}

TEST_CASE("vague: a result that cannot be written (file size limit, disk full) exits 3 naming the file",
          "[scenarios][input][vague]") {
  const std::string dir = scratch_dir("vague_disk_full");
  // A file size limit makes write(2) fail part-way, as a full disk does (EFBIG instead of ENOSPC);
  // SIGXFSZ ignored, so that the write returns the error instead of killing the process.
  const CommandResult r = run_command("trap '' XFSZ; ulimit -f 4; SYSTEMC_DISABLE_COPYRIGHT_MESSAGE=1 " +
                                      std::string(IBFSIM_BINARY) + " run " + data_path("small_uniform.yaml") + " -o " +
                                      dir + "/out --set phases.measure=2us --set phases.drain=2us");
  CHECK(r.exit_code == 3);
  // The run's header (printed before it simulates), then the error and nothing else: the first file
  // past 4 KiB is port_vls.csv (the tables come first, ports.csv under 4 KiB; results.json after
  // them is a few KiB).
  CHECK(r.output == "ibfsim " IBFSIM_VERSION_STRING ": " + data_path("small_uniform.yaml") +
                        " (seed 7)\nfabric: 8 HCAs, 2 switches, 10 cables (4x EDR)\nerror: cannot write '" + dir +
                        "/out/port_vls.csv': File too large (results incomplete)\n");
  // Nothing half-written is left under a temporary name.
  for (const auto& e : std::filesystem::directory_iterator(dir + "/out"))
    CHECK(e.path().filename().string().find(".tmp-") == std::string::npos);
}
