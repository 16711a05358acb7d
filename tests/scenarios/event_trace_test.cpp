// `ibfsim run --event-trace FILE`: every event the simulation runs, by name, so that a packet can
// be followed from the verb or generator that made it to the receive engine that takes it. These
// tests follow one RC WRITE and one UD SEND through a switch and check the chain of typed events.
#include <catch2/catch.hpp>

#include <sstream>
#include <string>
#include <vector>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

struct TraceLine {
  double time_ns;
  std::string event, target, args;
};

std::vector<TraceLine> read_trace(const std::string& path) {
  std::istringstream in(read_file(path));
  std::string line;
  std::getline(in, line);
  REQUIRE(line == "time_ns\tevent\ttarget\targuments");
  std::vector<TraceLine> out;
  while (std::getline(in, line)) {
    std::istringstream f(line);
    TraceLine t;
    std::string time;
    std::getline(f, time, '\t');
    std::getline(f, t.event, '\t');
    std::getline(f, t.target, '\t');
    std::getline(f, t.args);
    t.time_ns = std::stod(time);
    out.push_back(t);
  }
  return out;
}

// The events from the first `start` event on that concern `packet` (it is their first argument),
// and the switch input unit's first `head_eligible` at `switch_port` after the packet's head
// arrived there (that event names the queue entry, not the packet).
std::vector<std::string> chain(const std::vector<TraceLine>& trace, const std::string& start, const std::string& packet,
                               const std::string& switch_port) {
  std::vector<std::string> out;
  bool on = false;
  bool awaiting_route = false;
  for (const auto& t : trace) {
    if (!on && t.event + " " + t.target == start) on = true;
    if (!on) continue;
    const bool mine = t.args.rfind(packet, 0) == 0 && (t.args.size() == packet.size() || t.args[packet.size()] == ' ');
    const bool routed = awaiting_route && t.event == "InputUnit::head_eligible" && t.target == switch_port;
    if (out.empty() || mine || routed) out.push_back(t.event + " " + t.target);
    if (routed) awaiting_route = false;
    if (mine && t.event == "LinkPort::head_arrives" && t.target == switch_port) awaiting_route = true;
    if (mine && t.event == "ReceiveEngine::tail_arrives") break;
  }
  return out;
}

}  // namespace

TEST_CASE("event trace: an RC WRITE from the doorbell to the receive engine", "[scenarios][event_trace]") {
  const std::string dir = scratch_dir("event_trace_rc");
  const CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) +
                                     "/scenarios/perftest_write_lat.yaml --set workload.0.iterations=2 -o " + dir +
                                     "/out --event-trace " + dir + "/trace.tsv");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto trace = read_trace(dir + "/trace.tsv");
  // h1's first packet is packet 0 of node 1 (the id's upper bits are the node).
  const std::vector<std::string> expected = {
      "VerbsResources::doorbell h1/verbs",           // the WQE is posted
      "LinkPort::tx_done h1/1",                      // the send engine put it on h1's wire
      "LinkPort::head_arrives sw1/1",                // its LRH reaches the switch
      "InputUnit::head_eligible sw1/1",              // routed; may request its output
      "LinkPort::tx_done sw1/2",                     // forwarded, cut through
      "LinkPort::head_arrives h2/1",                 // at the destination's port
      "ReceiveEngine::tail_arrives h2/receive",      // checked and demultiplexed to the QP
  };
  const auto got = chain(trace, "VerbsResources::doorbell h1/verbs", "packet:0x10000000000", "sw1/1");
  CHECK(got == expected);
  // Times never go back, and the head's event carries the instant its tail arrives (in fs).
  double last = 0;
  double tail_due = 0;
  double tail_seen = 0;
  for (const auto& t : trace) {
    CHECK(t.time_ns >= last);
    last = t.time_ns;
    if (t.args.rfind("packet:0x10000000000 ", 0) != 0) continue;
    if (t.event == "LinkPort::head_arrives" && t.target == "h2/1") tail_due = std::stod(t.args.substr(21)) / 1e6;
    if (t.event == "ReceiveEngine::tail_arrives") tail_seen = t.time_ns;
  }
  CHECK(tail_due > 0);
  CHECK(tail_seen == Approx(tail_due).epsilon(1e-12));
}

TEST_CASE("event trace: a UD SEND from the generator to the receive engine", "[scenarios][event_trace]") {
  const std::string dir = scratch_dir("event_trace_ud");
  const CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) +
                                     "/scenarios/quickstart.yaml --set phases.warmup=0us --set phases.measure=1us "
                                     "--set phases.drain=2us -o " + dir + "/out --event-trace " + dir + "/trace.tsv");
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  const auto trace = read_trace(dir + "/trace.tsv");
  // h2's first message (packet 0 of node 2) goes to h8 through sw1 port 2 -> port 8.
  const auto got = chain(trace, "UdTrafficGenerator::message_due flow0@h2", "packet:0x20000000000", "sw1/2");
  const std::vector<std::string> expected = {
      "UdTrafficGenerator::message_due flow0@h2",  // the generator's arrival process fires
      "LinkPort::head_arrives sw1/2",              // the send engine started it on h2's wire at once
      "InputUnit::head_eligible sw1/2",            // routed to port 8
      "LinkPort::head_arrives h8/1",               // cut through: the head is at h8 ...
      "LinkPort::tx_done h2/1",                    // ... before its tail has left h2
      "LinkPort::tx_done sw1/8",
      "ReceiveEngine::tail_arrives h8/receive",
  };
  CHECK(got == expected);
}
