// Selectors that pick a number out of results.json for `ibfsim sweep --metric`.
#include <catch2/catch.hpp>

#include "sim/core/error.h"
#include "sim/report/json_select.h"

using namespace ibfsim;

namespace {

const nlohmann::json kResults = nlohmann::json::parse(R"({
  "load": {"offered": 0.5, "accepted": 0.49},
  "flows": [{"name": "c1", "throughput": {"accepted_payload_gbps": 24.2}},
            {"name": "victim", "throughput": {"accepted_payload_gbps": 50.5}}],
  "ports": [{"node": "spine", "port": 1, "window": {"busy_fraction": 0.1}},
            {"node": "spine", "port": 5, "window": {"busy_fraction": 0.958}},
            {"node": "leaf1", "port": 5, "window": {"busy_fraction": 0.3}}],
  "phases": {"drained": true, "end_ns": 1200.5}
})");

std::optional<double> pick(const std::string& s) { return json_select_number(kResults, parse_json_selector(s, "test")); }

}  // namespace

TEST_CASE("json selector: members, indexes and filters lead to the number", "[report][metric]") {
  CHECK(pick("load.accepted") == 0.49);
  CHECK(pick("phases.end_ns") == 1200.5);
  CHECK(pick("flows[1].throughput.accepted_payload_gbps") == 50.5);
  CHECK(pick("flows[name=victim].throughput.accepted_payload_gbps") == 50.5);
  // Every key of a filter must match; numbers match by value.
  CHECK(pick("ports[node=spine,port=5].window.busy_fraction") == 0.958);
  CHECK(pick("ports[port=5].window.busy_fraction") == 0.958);  // the first that matches
  CHECK(pick("ports[node=leaf1].window.busy_fraction") == 0.3);
}

TEST_CASE("json selector: what a point did not produce is missing, not zero", "[report][metric]") {
  CHECK_FALSE(pick("flows[name=nobody].throughput.accepted_payload_gbps"));
  CHECK_FALSE(pick("flows[7].name"));
  CHECK_FALSE(pick("load.nothing"));
  CHECK_FALSE(pick("flows[0].name"));     // a string, not a number
  CHECK_FALSE(pick("phases.drained"));    // a boolean
  CHECK_FALSE(pick("load.offered.more"));  // past a number
}

TEST_CASE("json selector: malformed selectors are input errors that say what was expected", "[report][metric][input]") {
  for (const char* bad : {"", "flows[name=victim", "flows[=x].a", "a..b", "a.", "a b", "flows[name]"}) {
    INFO(bad);
    try {
      parse_json_selector(bad, "--metric m=...");
      FAIL("accepted");
    } catch (const InputError& e) {
      CHECK(std::string(e.what()).find("--metric m=...: expected") == 0);
    }
  }
}
