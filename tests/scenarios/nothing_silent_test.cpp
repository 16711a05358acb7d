// Input that used to be accepted or defaulted without a word is an error (exit code 2, naming
// file:line:column or the flag and what was expected), one test per case (issue "Hardening":
// nothing silent).
#include <catch2/catch.hpp>

#include <filesystem>
#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const std::string kTopologies = std::string(IBFSIM_SOURCE_DIR) + "/topologies/";

// Writes `text` as DIR/bad.yaml in a fresh folder and returns its path.
std::string write_file(const std::string& name, const std::string& file, const std::string& text) {
  const std::string dir = scratch_dir("silent_" + name);
  const std::string path = dir + "/" + file;
  std::ofstream(path) << text;
  return path;
}

// Runs a scenario on the two-host fabric with `body` after the topology line; returns the output,
// after checking the exit code is 2.
std::string rejected(const std::string& name, const std::string& body, std::string* path_out) {
  const std::string path = write_file(name, "bad.yaml", "topology: " + kTopologies + "two_hosts.yaml\n" + body);
  const CommandResult r = run_ibfsim("run " + path + " -o " + std::filesystem::path(path).parent_path().string() + "/out");
  INFO(r.output);
  CHECK(r.exit_code == 2);
  *path_out = path;
  return r.output;
}

}  // namespace

TEST_CASE("silent: an empty sources list is an error, not every HCA", "[scenarios][input][silent]") {
  std::string path;
  const std::string out = rejected("empty_sources", "workload: {sources: [], destination: h2}\n", &path);
  CHECK(out == "error: " + path + ":2:21: expected at least one source (leave sources out for every HCA), got an "
                                  "empty list\n");
}

TEST_CASE("silent: a source listed twice is an error", "[scenarios][input][silent]") {
  std::string path;
  const std::string out = rejected("twice_source", "workload: {sources: [h1, h1], destination: h2}\n", &path);
  CHECK(out == "error: " + path + ":2:26: expected each source once, got 'h1' again\n");
  // A traffic class's sources too.
  const std::string cls = rejected("twice_class_source", "workload:\n  - {pattern: uniform, sources: [h2, h2]}\n", &path);
  CHECK(cls == "error: " + path + ":3:38: expected each source once, got 'h2' again\n");
}

TEST_CASE("silent: a flow whose only destination is its own source is an error", "[scenarios][input][silent]") {
  std::string path;
  std::string out = rejected("self_dest", "workload: {sources: [h1], destination: h1}\n", &path);
  CHECK(out == "error: " + path + ":2:40: expected a destination other than the flow's only source (a host never "
                                  "sends to itself), got 'h1'\n");
  // The same through a multicast group whose only member is the only source.
  out = rejected("self_group", "multicast: [{name: g, members: [h1]}]\nworkload: {sources: [h1], destination: g}\n", &path);
  CHECK(out == "error: " + path + ":3:40: expected a group with a member other than the flow's only source (a member "
                                  "never receives its own packets), got 'g' (members: h1)\n");
}

TEST_CASE("silent: two flows with the same name are an error", "[scenarios][input][silent]") {
  std::string path;
  std::string out = rejected("same_name",
                             "workload:\n  - {name: a, destination: h2}\n  - {name: a, transport: rc, verb: write, from: h1, to: h2}\n",
                             &path);
  CHECK(out == "error: " + path + ":4:12: expected each flow name once, got 'a' again (the name of the flow at " + path +
                   ":3:5)\n");
  // A given name that is another entry's default name (flowN, by position).
  out = rejected("default_name", "workload:\n  - {destination: h2}\n  - {name: flow0, destination: h1}\n", &path);
  CHECK(out == "error: " + path + ":4:12: expected each flow name once, got 'flow0' again (the name of the flow at " +
                   path + ":3:5, by its position)\n");
}

TEST_CASE("silent: an empty item in workload, nodes or cables is an error", "[scenarios][input][silent]") {
  std::string path;
  std::string out = rejected("null_workload", "workload:\n  - {destination: h2}\n  -\n", &path);
  CHECK(out == "error: " + path + ":3:3: expected a map, got an empty list item (item 2 of the list)\n");
  const std::string nodes = write_file("null_node", "t.yaml", "nodes:\n  - {name: sw1, type: switch}\n  -\ncables: []\n");
  CommandResult r = run_ibfsim("topo " + nodes);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + nodes + ":2:3: expected a map, got an empty list item (item 2 of the list)\n");
  const std::string cables = write_file(
      "null_cable", "t.yaml",
      "nodes:\n  - {name: sw1, type: switch}\n  - {name: h1, type: hca}\ncables:\n  - {from: h1/1, to: sw1/1}\n  -\n");
  r = run_ibfsim("topo " + cables);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + cables + ":5:3: expected a map, got an empty list item (item 2 of the list)\n");
}

TEST_CASE("silent: a --seed outside 0..2^64-1 is an error naming the flag", "[scenarios][input][silent]") {
  const std::string dir = scratch_dir("silent_seed");
  for (const std::string seed : {"-1", "18446744073709551616", "1.5", "0x1ffffffffffffffff", "seven"}) {
    const CommandResult r = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + dir + " --seed=" + seed);
    INFO(seed << ": " << r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output == "error: --seed: expected an integer in 0..18446744073709551615, got '" + seed + "'\n");
  }
  const CommandResult sweep =
      run_ibfsim("sweep " + data_path("small_uniform.yaml") + " --set workload.load=0.1,0.2 --plan -o " + dir + " --seed=-5");
  CHECK(sweep.exit_code == 2);
  CHECK(sweep.output == "error: --seed: expected an integer in 0..18446744073709551615, got '-5'\n");
  // The largest seed is taken.
  const CommandResult max = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + dir +
                                       " --seed 18446744073709551615 --set phases.measure=1us --set phases.drain=1us");
  INFO(max.output);
  CHECK(max.exit_code == 0);
  CHECK(max.output.find("(seed 18446744073709551615)") != std::string::npos);
}

TEST_CASE("silent: an LFT dump that routes a LID twice is an error", "[scenarios][input][silent]") {
  const std::string dir = scratch_dir("silent_lft_twice");
  const std::string topo = kTopologies + "two_switches.yaml";
  CommandResult r = run_ibfsim("routes --topology " + topo + " > " + dir + "/good.dump");
  REQUIRE(r.exit_code == 0);
  // The dump's line 3 (a LID of the first switch) once more after it.
  run_command("sed '3p' " + dir + "/good.dump > " + dir + "/twice.dump");
  const std::string third = run_command("sed -n 3p " + dir + "/good.dump").output;
  r = run_ibfsim("routes --topology " + topo + " --routing file --lft-file " + dir + "/twice.dump");
  CHECK(r.exit_code == 2);
  CHECK_THAT(r.output, Catch::StartsWith("error: " + dir + "/twice.dump:4: expected each LID once per switch (LID 0x0002 "
                                         "of switch 0x0002c90300000001"));
  CHECK_THAT(r.output, Catch::Contains("already routed at line 3), got '" + third.substr(0, third.size() - 1) + "'"));
  // The good dump loads.
  CHECK(run_ibfsim("routes --topology " + topo + " --routing file --lft-file " + dir + "/good.dump").exit_code == 0);
}

TEST_CASE("silent: a topology with no nodes is an error", "[scenarios][input][silent]") {
  const std::string path = write_file("no_nodes", "t.yaml", "nodes: []\ncables: []\n");
  const CommandResult r = run_ibfsim("topo " + path);
  CHECK(r.exit_code == 2);
  CHECK(r.output == "error: " + path + ":1:8: expected at least one node, got a list\n");
}

TEST_CASE("silent: -o into an earlier run's folder removes its files first, and says so", "[scenarios][input][silent]") {
  const std::string dir = scratch_dir("silent_earlier_run");
  const std::string out = dir + "/out";
  const std::string quick = " --set phases.measure=2us --set phases.drain=2us";
  CommandResult r = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + out + quick +
                               " --set outputs.pcap=true --set outputs.packet_log=true");
  REQUIRE(r.exit_code == 0);
  REQUIRE(std::filesystem::exists(out + "/trace.pcap"));
  std::ofstream(out + "/notes.txt") << "mine\n";  // not an ibfsim file: left alone
  r = run_ibfsim("run " + data_path("small_uniform.yaml") + " -o " + out + quick);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  // The earlier run's capture and packet log do not stay beside the new results.
  CHECK_FALSE(std::filesystem::exists(out + "/trace.pcap"));
  CHECK_FALSE(std::filesystem::exists(out + "/trace_links.csv"));
  CHECK_FALSE(std::filesystem::exists(out + "/packets.csv"));
  CHECK(std::filesystem::exists(out + "/results.json"));
  CHECK(read_file(out + "/notes.txt") == "mine\n");
  CHECK_THAT(r.output, Catch::Contains("earlier run in " + out + ": "));
  CHECK_THAT(r.output, Catch::Contains("trace.pcap"));
}
