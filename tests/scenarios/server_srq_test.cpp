// `srq: true` (docs/scenario.md, "Shared receive queues"): the flows to one server share its SRQ;
// every message takes one buffer, every completed receive gives it back, the limit event is
// raised once, an empty SRQ is met with RNR NAKs and retried, and bad input is a located error.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

const std::string kTopo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";

struct SrqRun {
  nlohmann::json results;
  std::string csv;
};

SrqRun run_srq(const std::string& name, const std::string& text) {
  const std::string dir = scratch_dir(name);
  std::ofstream(dir + "/s.yaml") << "topology: " << kTopo << "\nseed: 1\n" << text;
  const CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return {nlohmann::json::parse(read_file(dir + "/out/results.json")), read_file(dir + "/out/shared_receive_queues.csv")};
}

const nlohmann::json& flow(const nlohmann::json& r, const std::string& name) {
  for (const auto& f : r["flows"])
    if (f["name"] == name) return f;
  throw std::runtime_error("no flow " + name);
}

// The CSV's one data row, split at commas.
std::vector<std::string> row(const std::string& csv) {
  std::istringstream in(csv);
  std::string header, line, cell;
  std::getline(in, header);
  CHECK(header == "hca,max_wr,limit,buffer_bytes,qps,posted,taken,held_at_end,limit_events,limit_reached_ns");
  std::getline(in, line);
  std::vector<std::string> f;
  std::istringstream ls(line);
  while (std::getline(ls, cell, ',')) f.push_back(cell);
  f.resize(10);
  return f;
}

}  // namespace

TEST_CASE("srq: two clients share h4's SRQ: 40 buffers taken and given back, the limit event once",
          "[scenarios][srq]") {
  const SrqRun r = run_srq("srq_two",
                           "shared_receive_queue: {max_wr: 8, limit: 4}\n"
                           "workload:\n"
                           "  - {name: a, transport: rc, verb: send, from: h2, to: h4, message_size: 4096, iterations: 20, "
                           "tx_depth: 4, recv_post_delay: 2us, srq: true}\n"
                           "  - {name: b, transport: rc, verb: send, from: h3, to: h4, message_size: 4096, iterations: 20, "
                           "tx_depth: 4, recv_post_delay: 2us, srq: true}\n");
  for (const char* n : {"a", "b"}) {
    const auto& f = flow(r.results, n);
    CHECK(f["messages_completed"] == 20);
    CHECK(f["receive_completions"]["IBV_WC_SUCCESS"] == 20);
    CHECK(f["to_side"]["receives_posted"] == 0);  // none of its own: the SRQ's
  }
  const std::vector<std::string> f = row(r.csv);
  CHECK(f[0] == "h4");
  CHECK(f[1] == "8");
  CHECK(f[2] == "4");
  CHECK(f[3] == "4096");
  CHECK(f[4] == "2");          // both flows' QPs
  CHECK(f[6] == "40");         // one per message
  // 8 at the start, then each buffer given back 2 us after its receive completed: the 5 whose
  // 2 us had not passed when the last message completed (and the run ended) are not.
  CHECK(f[5] == "43");
  CHECK(f[7] == "3");          // posted - taken
  CHECK(f[8] == "1");          // raised once, never re-armed
  CHECK(!f[9].empty());
  // The limit event comes with the take that leaves 3: the 5th message's first packet, before the
  // first buffer is given back (the first receive completes, then 2 us pass).
  const double first_post = flow(r.results, "a")["first_post_ns"];
  CHECK(std::stod(f[9]) > first_post);
  CHECK(std::stod(f[9]) < first_post + 2000 + 4 * 1000);
}

TEST_CASE("srq: an SRQ too small for the clients: RNR NAKs, retried, every message received once",
          "[scenarios][srq]") {
  const SrqRun r = run_srq("srq_small",
                           "shared_receive_queue: {max_wr: 2}\n"
                           "workload:\n"
                           "  - {name: a, transport: rc, verb: send, from: h2, to: h4, message_size: 1024, iterations: 10, "
                           "tx_depth: 4, recv_post_delay: 5us, srq: true, qp: {min_rnr_timer: 1}}\n"
                           "  - {name: b, transport: rc, verb: send, from: h3, to: h4, message_size: 1024, iterations: 10, "
                           "tx_depth: 4, recv_post_delay: 5us, srq: true, qp: {min_rnr_timer: 1}}\n");
  std::uint64_t rnr = 0;
  for (const char* n : {"a", "b"}) {
    const auto& f = flow(r.results, n);
    CHECK(f["messages_completed"] == 10);
    CHECK(f["receive_completions"]["IBV_WC_SUCCESS"] == 10);
    rnr += f["rnr_naks"].get<std::uint64_t>();
  }
  CHECK(rnr > 0);
  const std::vector<std::string> f = row(r.csv);
  CHECK(f[6] == "20");
  // 2 at the start and 18 given back: the last 2 were still waiting their 5 us when the run ended.
  CHECK(f[5] == "20");
  CHECK(f[7] == "0");
  CHECK(f[8] == "0");   // limit 0: not armed
  CHECK(f[9].empty());
}

TEST_CASE("srq: bad input is a located error (exit 2)", "[scenarios][srq][input]") {
  const std::string dir = scratch_dir("srq_bad");
  const std::pair<std::string, std::string> cases[] = {
      {"workload: [{name: a, transport: rc, verb: write, from: h2, to: h4, srq: true}]\n",
       ":3:73: expected no srq: only send, send_imm and write_imm consume receives, got true"},
      {"workload: [{name: a, transport: rc, verb: send, test: lat, from: h2, to: h4, srq: true}]\n",
       ":3:83: expected no srq on a latency test"},
      {"outputs: {data_check: true}\nworkload: [{name: a, transport: rc, verb: send, from: h2, to: h4, srq: true}]\n",
       ":4:72: expected no srq with outputs.data_check"},
      {"shared_receive_queue: {max_wr: 0}\n", ":3:32: expected an integer in 1..32768, got '0'"},
      {"shared_receive_queue: {max_wr: 8, limit: 8}\n", ":3:42: expected an integer in 0..7, got '8'"},
      {"shared_receive_queue: {size: 8}\n", ":3:24: expected one of the keys"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const std::string path = dir + "/bad.yaml";
    std::ofstream(path) << "topology: " << kTopo << "\nseed: 1\n" << text;
    const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + message) != std::string::npos);
  }
}
