// Congestion spreads from a hot destination to a victim flow that shares a switch input with the
// hot traffic on the same VL (head-of-line blocking); on its own VL the victim is unaffected.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {
nlohmann::json run(const std::string& name, const std::string& args) {
  const std::string out = scratch_dir(name);
  CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/hotspot_victim.yaml -o " + out +
                               " " + args);
  if (r.exit_code != 0) throw std::runtime_error(r.output);
  return results_and_tables(out);
}
double victim_mean(const nlohmann::json& j) { return j["flows"][1]["latency"]["mean_ns"].get<double>(); }
}  // namespace

TEST_CASE("a victim flow sharing an input with hotspot traffic on one VL suffers HOL blocking, another VL cures it",
          "[scenarios][congestion]") {
  auto alone = run("victim_alone", "--set workload.0.load=0.001");
  auto same_vl = run("victim_same_vl", "");
  auto other_vl = run("victim_other_vl", "--set workload.1.sl=1");
  INFO("victim mean latency: alone " << victim_mean(alone) << " ns, same VL " << victim_mean(same_vl)
                                     << " ns, other VL " << victim_mean(other_vl) << " ns");
  CHECK(victim_mean(same_vl) > 10 * victim_mean(alone));
  // On its own VL the victim only shares h1's link (VL arbitration, one packet time at most).
  CHECK(victim_mean(other_vl) < 2 * victim_mean(alone));
  // The hot destination's link runs full (1.8x oversubscribed) and nothing is dropped; on the same
  // VL the victim's throughput collapses to what HOL blocking lets through.
  for (const auto* j : {&same_vl, &other_vl}) {
    CHECK((*j)["packets"]["dropped_total"] == 0);
    CHECK((*j)["flows"][0]["throughput"]["accepted_payload_gbps"].get<double>() > 95.0);
  }
  CHECK(other_vl["flows"][1]["throughput"]["accepted_payload_gbps"].get<double>() > 28.0);
  // Credits ran out where the congestion spread: the hot senders' VL0 stalled for much of the
  // run, while the victim's own VL1 at h1 never waited long.
  for (const char* h : {"h1", "h2", "h3"}) {
    const auto& vls = port_of(other_vl, h, 1)["vls"];
    CHECK(vls[0]["credit_stall_ns"].get<double>() > 50000.0);
    CHECK(vls[1]["credit_stall_ns"].get<double>() < 1000.0);
  }
  // Full: three 33-block packets (99 blocks) and no room for a fourth in 128.
  CHECK(port_of(other_vl, "sw1", 1)["vls"][0]["rx_buffer_max_blocks"] == 99);
  CHECK(port_of(other_vl, "sw1", 1)["vls"][0]["rx_buffer_mean_blocks"].get<double>() > 64.0);
  CHECK(same_vl["flows"][1]["throughput"]["accepted_payload_gbps"].get<double>() < 20.0);
}
