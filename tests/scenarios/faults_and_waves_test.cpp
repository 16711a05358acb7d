#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <cmath>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

TEST_CASE("a link that goes down loses what is on it and what waits for it, each counted, and comes back up",
          "[scenarios][faults]") {
  // h1 streams to h2 (one 2 KiB packet every 337.92 ns: 66 edges of 2.56 ns at 50%); the cable of h2
  // goes down 40 us after traffic started and up 10 us later, and then retrains before it carries
  // anything again.
  auto r = run_scenario_text("faults",
                             "quickstart.yaml\n"
                             "workload: {sources: [h1], destination: h2, message_size: 2048, load: 0.5, arrival: constant}\n"
                             "phases: {warmup: 0us, measure: 80us, drain: 20us}\n"
                             "faults: [{at: 40us, link: sw1/2, state: down}, {at: 50us, link: h2/1, state: up}]\n"
                             // About the link layer (what a fault loses, when the link retrains): with
                             // the static LIDs the port is Active again right after training. With
                             // the SM it waits for a re-sweep (sm_fault_recovery_test.cpp).
                             "subnet_manager: static\n");
  const auto& link = r["links"][1];  // h2/1 - sw1/2
  REQUIRE(link["b"] == "sw1/2");
  auto fs = [](const nlohmann::json& ns) { return static_cast<std::uint64_t>(std::llround(ns.get<double>() * 1e6)); };
  const std::uint64_t start = fs(r["phases"]["start_ns"]), training = fs(link["training_ns"]);
  CHECK(fs(link["active_ns"]) == training);
  CHECK(start == training);  // every link is the same: traffic starts when they are up
  REQUIRE(link["down_ns"].size() == 1);
  const std::uint64_t down = fs(link["down_ns"][0]);
  CHECK(down == start + 40'000'000'000ull);  // fault times count from the start of traffic
  REQUIRE(link["retrained_active_ns"].size() == 1);
  // Retraining starts at the up event: the SDR phase (4,352 edges of 4 ns) on the first SDR edge,
  // the EDR phase (272 edges of 2.56 ns) on the first EDR edge after it.
  const std::uint64_t up_event = start + 50'000'000'000ull, sdr = 4'000'000, edr = 2'560'000;
  const std::uint64_t sdr_end = (up_event + sdr - 1) / sdr * sdr + 4352 * sdr;
  const std::uint64_t reup = (sdr_end + edr - 1) / edr * edr + 272 * edr;
  CHECK(fs(link["retrained_active_ns"][0]) == reup);
  // Every packet that reached sw1 for h2 while the link was down or training is lost, give or take
  // the ones on the wire when it went down and those that wait for the first credits after it.
  const std::uint64_t lost = r["packets"]["dropped"]["link_down"];
  CHECK(r["packets"]["dropped_total"] == lost);
  const double expected = static_cast<double>(reup - down) / 337'920'000.0;
  CHECK(static_cast<double>(lost) >= expected - 2);
  CHECK(static_cast<double>(lost) <= expected + 2);
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
