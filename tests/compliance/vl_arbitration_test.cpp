// R19 (Vol1 ch7): VL arbitration follows the High/Low tables with 64-byte weight units, weight-0
// entries skipped, and the LimitOfHighPriority bound. Two hosts saturate one switch output, each
// on its own SL/VL; the output's arbiter decides who gets the wire.
#include <catch2/catch.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {
std::string two_vls(unsigned size, const std::string& arbitration) {
  return "quickstart.yaml\n"
         "workload:\n"
         "  - {name: a, sources: [h1], destination: h3, sl: 0, load: 1.0, arrival: constant, message_size: " + std::to_string(size) + "}\n"
         "  - {name: b, sources: [h2], destination: h3, sl: 1, load: 1.0, arrival: constant, message_size: " + std::to_string(size) + "}\n"
         "phases: {warmup: 20us, measure: 200us, drain: 1us}\n"
         "link: {vl_arbitration: " + arbitration + "}\n";
}
double share(const nlohmann::json& r, int flow) {
  const double a = r["flows"][0]["throughput"]["accepted_payload_bytes"].get<double>();
  const double b = r["flows"][1]["throughput"]["accepted_payload_bytes"].get<double>();
  return (flow == 0 ? a : b) / (a + b);
}
}  // namespace

TEST_CASE("R19 (ch7): low-priority weights 1:3 in 64-byte units give 25% / 75% of the output",
          "[compliance][R19][ch7]") {
  // 28-byte payloads make 64-byte packets (LRH 8 + BTH 12 + DETH 8 + 28 + ICRC 4 +
  // VCRC 2 = 62 bytes, one weight unit): the arbiter sends 1 : 3 packets.
  auto r = run_scenario_text("r19_small", two_vls(28, "{low: [[0, 1], [1, 3]]}"));
  CHECK(share(r, 0) == Approx(0.25).margin(0.01));
  CHECK(share(r, 1) == Approx(0.75).margin(0.01));
  CHECK(r["packets"]["dropped_total"] == 0);
}

TEST_CASE("R19 (ch7): weights 32:96 with 2 KiB packets (33 units) give 25% / 75%, a packet overruns its weight",
          "[compliance][R19][ch7]") {
  // VL0: 32 units -> one 33-unit packet. VL1: 96 units -> three packets (96, 63, 30 left before each).
  auto r = run_scenario_text("r19_large", two_vls(2048, "{low: [[0, 32], [1, 96]]}"));
  CHECK(share(r, 0) == Approx(0.25).margin(0.01));
  CHECK(share(r, 1) == Approx(0.75).margin(0.01));
}

TEST_CASE("R19 (ch7): weight-0 entries are skipped and a table listing a VL twice serves it twice",
          "[compliance][R19][ch7]") {
  auto r = run_scenario_text("r19_zero", two_vls(28, "{low: [[0, 1], [1, 0], [1, 1], [0, 0], [1, 1]]}"));
  CHECK(share(r, 0) == Approx(1.0 / 3).margin(0.01));
}

TEST_CASE("R19 (ch7): high priority is served first, up to LimitOfHighPriority x 4 KiB, then one low packet",
          "[compliance][R19][ch7]") {
  // VL1 high, VL0 low, limit 1 (4 KiB): two 2082-byte high packets (4164 B >= 4096) then one low.
  auto r = run_scenario_text("r19_high", two_vls(2048, "{high: [[1, 255]], low: [[0, 255]], high_limit: 1}"));
  CHECK(share(r, 1) == Approx(2.0 / 3).margin(0.01));
  // Limit 255: high priority is never interrupted; the low VL gets nothing while it is busy.
  auto u = run_scenario_text("r19_unlimited", two_vls(2048, "{high: [[1, 255]], low: [[0, 255]], high_limit: 255}"));
  CHECK(share(u, 1) == Approx(1.0));
  // Limit 0: one high packet, then a low one.
  auto z = run_scenario_text("r19_limit0", two_vls(2048, "{high: [[1, 255]], low: [[0, 255]], high_limit: 0}"));
  CHECK(share(z, 1) == Approx(0.5).margin(0.01));
}
