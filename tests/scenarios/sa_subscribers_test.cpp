// `subnet_manager.sa.subscribers`: hosts subscribe to traps at bring-up; h8's cable fails, then
// h4's: sw2, then sw1, raise trap 128, and the SM forwards each to the hosts whose subscription
// matches. On two_switches.yaml (h1..h4 on sw1, h5..h8 on sw2, the SM on h1); the failed cables
// carry no route between a subscriber and the SM.
#include <catch2/catch.hpp>

#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const char* kScenario =
    "workload: {name: to_h5, sources: [h1], destination: h5, message_size: 1024, load: 0.1, arrival: constant}\n"
    "phases: {warmup: 0us, measure: 200us, drain: 20us}\n"
    "faults: [{at: 50us, link: sw2/4, state: down}, {at: 120us, link: sw1/4, state: down}]\n";

// sa_subscribers.csv by host: column name -> cell.
std::map<std::string, std::map<std::string, std::string>> csv_by_host(const std::string& csv) {
  std::istringstream in(csv);
  auto cells = [](const std::string& line) {
    std::vector<std::string> out;
    std::istringstream l(line);
    for (std::string c; std::getline(l, c, ',');) out.push_back(c);
    return out;
  };
  std::string line;
  std::getline(in, line);
  const auto header = cells(line);
  std::map<std::string, std::map<std::string, std::string>> rows;
  while (std::getline(in, line)) {
    const auto c = cells(line);
    REQUIRE(c.size() == header.size());
    std::map<std::string, std::string> row;
    for (std::size_t i = 0; i < c.size(); ++i) row[header[i]] = c[i];
    rows[row.at("hca")] = row;
  }
  return rows;
}

}  // namespace

TEST_CASE("SA subscribers: trap 128 of each switch is reported to the hosts subscribed to it", "[scenarios][sa]") {
  const std::string dir = scratch_dir("sa_subscribers");
  std::ofstream(dir + "/s.yaml") << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/two_switches.yaml\n"
                                 << kScenario
                                 << "subnet_manager: {host: h1, sa: {subscribers: [{host: h2, traps: [128]}, "
                                    "{host: h6, traps: all}, {host: h3, traps: [256, 129]}]}}\n";
  const CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto results = nlohmann::json::parse(read_file(dir + "/out/results.json"));
  // Three hosts, four InformInfo Sets, all accepted; sw2 and sw1 each send trap 128 once (the SM
  // represses it at once): 2 Reports to h2, 2 to h6 (all traps), none to h3 (256 and 129 only).
  CHECK(results["subnet_manager"]["traps_received"] == 2);
  const auto& e = results["sa_events"];
  CHECK(e["subscriptions"] == 4);
  CHECK(e["reports_sent"] == 4);
  CHECK(e["reports_acknowledged"] == 4);
  CHECK(e["reports_resent"] == 0);
  CHECK(e["reports_failed"] == 0);
  const auto rows = csv_by_host(read_file(dir + "/out/sa_subscribers.csv"));
  REQUIRE(rows.size() == 3);
  CHECK(rows.at("h2").at("subscriptions_accepted") == "1");
  CHECK(rows.at("h3").at("subscriptions_accepted") == "2");
  CHECK(rows.at("h6").at("subscriptions_accepted") == "1");
  for (const char* h : {"h2", "h3", "h6"}) {
    CHECK(rows.at(h).at("subscriptions_refused") == "0");
    CHECK(rows.at(h).at("subscriptions_unanswered") == "0");
  }
  for (const char* h : {"h2", "h6"}) {
    CHECK(rows.at(h).at("reports_received") == "2");
    CHECK(rows.at(h).at("reports_sent") == "2");
    CHECK(rows.at(h).at("reports_acknowledged") == "2");
  }
  CHECK(rows.at("h3").at("reports_received") == "0");
  CHECK(rows.at("h3").at("reports_sent") == "0");
}

TEST_CASE("SA subscribers: bad entries are located errors (exit 2)", "[scenarios][input][sa]") {
  const std::string dir = scratch_dir("sa_subscribers_bad");
  const std::pair<std::string, std::string> cases[] = {
      {"subnet_manager: {sa: {subscribers: [{host: sw1, traps: all}]}}", ":5:44: expected the name of an HCA, got 'sw1'"},
      {"subnet_manager: {sa: {subscribers: [{host: h2, traps: [65535]}]}}",
       ":5:56: expected an integer in 0..65534, got '65535'"},
      {"subnet_manager: {sa: {subscribers: [{host: h2, traps: some}]}}",
       ":5:55: expected all, or a list of trap numbers, got 'some'"},
      {"subnet_manager: {sa: {subscribers: [{host: h2, traps: []}]}}",
       ":5:55: expected all, or a list of trap numbers, got an empty list"},
      {"subnet_manager: {sa: {subscribers: [{host: h2}]}}", ":5:37: expected key 'traps', got a map without it"},
      {"subnet_manager: {host: h2, sa: {subscribers: [{host: h2, traps: all}]}}",
       ":5:54: expected an HCA other than the subnet manager's (a client on the SM's own node is not supported), "
       "got 'h2'"},
      // The default SM host (the first HCA with a cabled port, h1), known when the run starts.
      {"subnet_manager: {sa: {subscribers: [{host: h1, traps: all}]}}",
       ": subnet_manager.sa.subscribers: h1 runs the subnet manager; expected another HCA"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const std::string path = dir + "/bad.yaml";
    std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/two_switches.yaml\n" << kScenario << text << "\n";
    const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(message) != std::string::npos);
  }
}
