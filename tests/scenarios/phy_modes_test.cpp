// PHY fidelity: the bit-exact mode (every symbol encoded, striped, decoded) gives the same arrival
// edge for every packet on every link as the timing mode, and bit errors are caught and counted.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "sim/phy/skip_schedule.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
// Runs `topology` in timing and bit_exact modes with SKIP ordered sets every `skip_interval` edges
// (0: none) and checks that every frame on every link has the same time in both.
void same_timing(const std::string& topology, std::uint64_t skip_interval) {
  const std::string dir = scratch_dir("phy_" + topology + "_" + std::to_string(skip_interval));
  std::ofstream(dir + "/s.yaml") << "topology: " << data_path(topology) << "\n"
                                 << "workload: {message_size: 300, load: 0.6}\n"
                                 << "phases: {warmup: 0us, measure: 15us, drain: 30us}\n"
                                 << "phy: {skip_interval_edges: " << skip_interval << "}\n"
                                 << "outputs: {pcap: true}\n";
  REQUIRE(run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/timing").exit_code == 0);
  CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/exact --set phy.mode=bit_exact");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);  // the link also checks every packet's start and end edge itself
  // Every frame on every link, with its time: identical.
  const std::string t = read_file(dir + "/timing/trace_links.csv"), e = read_file(dir + "/exact/trace_links.csv");
  REQUIRE(t.size() > 1000);
  CHECK(t == e);
  auto jt = results_and_tables(dir + "/timing");
  auto je = results_and_tables(dir + "/exact");
  CHECK(jt["latency"] == je["latency"]);
  CHECK(jt["packets"] == je["packets"]);
  CHECK(jt["ports"] == je["ports"]);
  // The PHYs sent exactly the SKIPs the timing model counted (which delayed packets behind them).
  std::uint64_t skips = 0;
  for (const auto& l : je["links"]) {
    CHECK(l["phy_mode"] == "bit_exact");
    CHECK(l["symbol_errors"] == 0);
    std::uint64_t counted = 0;
    for (const auto& p : je["ports"]) {
      const std::string name = p["node"].get<std::string>() + "/" + std::to_string(p["port"].get<unsigned>());
      if (name == l["a"] || name == l["b"]) counted += p["tx_skips"].get<std::uint64_t>();
    }
    CHECK(l["skips"] == counted);
    skips += counted;
  }
  // Every link direction is up for more than one interval (at least 6,000 edges).
  if (skip_interval == 0) CHECK(skips == 0);
  else CHECK(skips >= 2 * je["links"].size());
}
}  // namespace

TEST_CASE("bit-exact and timing modes give identical arrival times on every link, 1x QDR (8b/10b)", "[scenarios][phy]") {
  same_timing("phy_QDR_1x.yaml", 0);
  same_timing("phy_QDR_1x.yaml", kDefaultSkipIntervalEdges);
}
TEST_CASE("bit-exact and timing modes give identical arrival times on every link, 4x QDR (8b/10b)", "[scenarios][phy]") {
  same_timing("phy_QDR_4x.yaml", 0);
  same_timing("phy_QDR_4x.yaml", kDefaultSkipIntervalEdges);
}
TEST_CASE("bit-exact and timing modes give identical arrival times on every link, 1x EDR (64b/66b)", "[scenarios][phy]") {
  same_timing("phy_EDR_1x.yaml", 0);
  same_timing("phy_EDR_1x.yaml", kDefaultSkipIntervalEdges);
}
TEST_CASE("bit-exact and timing modes give identical arrival times on every link, 4x EDR (64b/66b)", "[scenarios][phy]") {
  same_timing("phy_EDR_4x.yaml", 0);
  same_timing("phy_EDR_4x.yaml", kDefaultSkipIntervalEdges);
}
TEST_CASE("with SKIP ordered sets every 97 edges, bit-exact and timing modes still agree on every frame, 8b/10b "
          "and 64b/66b at 1x and 4x",
          "[scenarios][phy][skip]") {
  // Frequent SKIPs fall due during idle, just before packets and while packets are on the wire.
  for (const char* topo : {"phy_QDR_1x.yaml", "phy_QDR_4x.yaml", "phy_EDR_1x.yaml", "phy_EDR_4x.yaml"}) {
    INFO(topo);
    same_timing(topo, 97);
  }
}

TEST_CASE("bit errors on a bit-exact link are caught (symbol, VCRC, EBP or ICRC errors), dropped and counted",
          "[scenarios][phy]") {
  for (const char* topo : {"phy_QDR_4x.yaml", "phy_EDR_4x.yaml"}) {
    INFO(topo);
    const std::string dir = scratch_dir(std::string("ber_") + topo);
    std::ofstream(dir + "/s.yaml") << "topology: " << data_path(topo) << "\n"
                                   << "workload: {message_size: 1024, load: 0.6}\n"
                                   << "phases: {warmup: 0us, measure: 40us, drain: 400us}\n"
                                   << "phy: {mode: bit_exact, bit_error_rate: 2.0e-6}\n";
    CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
    INFO(r.output);
    REQUIRE(r.exit_code == 0);  // every packet delivered or dropped with a reason
    auto j = results_and_tables(dir + "/out");
    std::uint64_t flipped = 0;
    for (const auto& l : j["links"]) flipped += l["bits_flipped"].get<std::uint64_t>();
    CHECK(flipped > 10);
    const auto& d = j["packets"]["dropped"];
    const std::uint64_t caught = d["phy_error"].get<std::uint64_t>() + d["vcrc_error"].get<std::uint64_t>() +
                                 d["icrc_error"].get<std::uint64_t>() + d["ebp"].get<std::uint64_t>();
    CHECK(caught > 0);
    // Every packet a switch stomped was dropped as EBP by the next receiver or stomped again.
    std::uint64_t stomped = 0, ebp_received = 0;
    for (const auto& p : j["ports"]) {
      stomped += p["tx_ebp"].get<std::uint64_t>();
      ebp_received += p["rcv_errors"]["ebp"].get<std::uint64_t>();
    }
    CHECK(ebp_received == stomped);
    CHECK(d["ebp"].get<std::uint64_t>() <= stomped);
    CHECK(j["packets"]["dropped_total"] == caught);
    CHECK(j["packets"]["delivered"].get<std::uint64_t>() + caught == j["packets"]["created"].get<std::uint64_t>());
    // The same seed gives the same errors.
    REQUIRE(run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/again").exit_code == 0);
    CHECK(read_file(dir + "/out/results.json") == read_file(dir + "/again/results.json"));
  }
}

TEST_CASE("the quickstart scenario gives the same figures in timing and bit-exact modes, credit stalls included",
          "[scenarios][phy]") {
  const std::string dir = scratch_dir("phy_quickstart");
  const std::string scenario = std::string(IBFSIM_SOURCE_DIR) + "/scenarios/quickstart.yaml";
  REQUIRE(run_ibfsim("run " + scenario + " -o " + dir + "/timing").exit_code == 0);
  REQUIRE(run_ibfsim("run " + scenario + " -o " + dir + "/exact --set phy.mode=bit_exact").exit_code == 0);
  auto jt = results_and_tables(dir + "/timing");
  auto je = results_and_tables(dir + "/exact");
  // Everything but the run's own bookkeeping (the bit-exact PHY sends periodic flow-control
  // packets as events, the timing mode accounts for them lazily) and the PHY's counters.
  for (const char* key : {"packets", "latency", "network_latency", "flows", "throughput", "phases", "ports"}) {
    INFO(key);
    CHECK(jt[key] == je[key]);
  }
}
