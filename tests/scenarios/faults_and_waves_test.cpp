#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("a link that goes down loses what is on it and what waits for it, each counted, and comes back up",
          "[scenarios][faults]") {
  // h1 streams to h2; the cable of h2 goes down at 20 us and up at 30 us.
  auto r = run_scenario_text("faults",
                             "quickstart.yaml\n"
                             "workload: {sources: [h1], destination: h2, message_size: 2048, load: 0.5, arrival: constant}\n"
                             "phases: {warmup: 0us, measure: 50us, drain: 20us}\n"
                             "faults: [{at: 20us, link: sw1/2, state: down}, {at: 30us, link: h2/1, state: up}]\n");
  const std::uint64_t lost = r["packets"]["dropped"]["link_down"];
  CHECK(lost > 0);
  CHECK(r["packets"]["dropped_total"] == lost);
  // 10 us at 50% of 169 ns per packet is ~30 packets lost; everything else arrives.
  CHECK(lost >= 25);
  CHECK(lost <= 35);
  CHECK(r["packets"]["delivered"].get<std::uint64_t>() + lost == r["packets"]["created"].get<std::uint64_t>());
  CHECK(port_of(r, "sw1", 2)["state"] == "Active");
  // The link was re-initialised: both ends sent a second round of Op-1 flow-control packets.
  CHECK(port_of(r, "h2", 1)["tx_flow_control"].get<std::uint64_t>() >= 16);
}

TEST_CASE("outputs.vcd writes a VCD with credits and receive depth per VL of the listed ports", "[scenarios][vcd]") {
  const std::string dir = scratch_dir("vcd");
  const std::string path = dir + "/s.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/quickstart.yaml\n"
                      << "workload: {destination: h1, load: 0.5}\n"
                      << "phases: {warmup: 0us, measure: 5us, drain: 5us}\n"
                      << "outputs: {vcd: true, vcd_ports: [sw1/1, h2/1]}\n";
  CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const std::string vcd = read_file(dir + "/out/waves.vcd");
  REQUIRE(!vcd.empty());
  CHECK(vcd.find("$timescale") != std::string::npos);
  CHECK(vcd.find("1 fs") != std::string::npos);
  // Names become nested scopes: sw1 / port1 / vl0 / credits.
  for (const char* scope : {"$scope module sw1 $end", "$scope module h2 $end", "$scope module port1 $end",
                            "$scope module vl7 $end"})
    CHECK(vcd.find(scope) != std::string::npos);
  std::size_t vars = 0, stamps = 0, pos = 0;
  while ((pos = vcd.find("$var wire", pos)) != std::string::npos) ++vars, ++pos;
  CHECK(vars == 2 * 8 * 2);  // 2 ports x 8 VLs x (credits, rx_depth)
  REQUIRE(vcd.find("$enddefinitions") != std::string::npos);
  for (pos = vcd.find("$enddefinitions"); (pos = vcd.find("\n#", pos)) != std::string::npos; ++pos) ++stamps;
  CHECK(stamps > 50);  // values change at many instants
  CHECK_FALSE(std::ifstream(dir + "/out/waves.tmp.vcd").good());  // moved to its final name
  // GTKWave's own reader accepts it: vcd2fst converts it, and fst2vcd gives the signals back.
  CommandResult conv = run_command("vcd2fst " + dir + "/out/waves.vcd " + dir + "/out/waves.fst");
  INFO(conv.output);
  REQUIRE(conv.exit_code == 0);
  CommandResult back = run_command("fst2vcd " + dir + "/out/waves.fst");
  REQUIRE(back.exit_code == 0);
  CHECK(back.output.find("credits") != std::string::npos);
  CHECK(back.output.find("rx_depth") != std::string::npos);
}
