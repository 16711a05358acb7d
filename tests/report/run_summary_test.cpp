// The run summary's lines that do not repeat results.json: the fabric line names every rate the
// cables carry, with its count, and counts in the singular where there is one.
#include <catch2/catch.hpp>

#include "sim/report/run_summary.h"

using namespace ibfsim;

TEST_CASE("run summary: the fabric line names one rate, or each rate with its cables", "[report][summary]") {
  RunFacts f;
  f.hcas = 8, f.switches = 1, f.cables = 8;
  f.cable_rates = {{"4x EDR", 8}};
  CHECK(fabric_line(f) == "fabric: 8 HCAs, 1 switch, 8 cables (4x EDR)\n");
  // EDR and HDR hosts on one switch: not "(4x EDR)" for the lot.
  f.cable_rates = {{"4x EDR", 4}, {"4x HDR", 4}};
  CHECK(fabric_line(f) == "fabric: 8 HCAs, 1 switch, 8 cables (4 at 4x EDR, 4 at 4x HDR)\n");
  f.hcas = 1, f.switches = 2, f.cables = 1;
  f.cable_rates = {{"1x SDR", 1}};
  CHECK(fabric_line(f) == "fabric: 1 HCA, 2 switches, 1 cable (1x SDR)\n");
  f.cables = 0;
  f.cable_rates.clear();
  CHECK(fabric_line(f) == "fabric: 1 HCA, 2 switches, 0 cables\n");
}
