// The switch's input unit (input_unit.h): the cut-through rule to the edge, FIFO order and
// head-of-line blocking per VL, HOQLife and LifeTimeValue discards to the femtosecond. A switch on
// a bench (switch_bench.h), no fabric: the test plays the wire into its input port.
#include <catch2/catch.hpp>

#include "sim/core/calendar_process.h"
#include "tests/network/switch_bench.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
constexpr Time kLatency = 100 * kNs;
// A 2048-byte payload: 2058 bytes LRH..VCRC, 33 blocks, 65 edges on EDR 4x ((2058 + 2 + 31) / 32).
constexpr std::uint32_t kPayload = 2048;
constexpr std::uint64_t kEdges = 65;
constexpr Time kOnWire = kEdges * kEdrEdge;  // 166.4 ns: the tail of a packet that came at the same rate

SwitchConfig config(unsigned op_vls = 1) {
  SwitchConfig c;
  c.num_ports = 3;
  c.latency = kLatency;
  c.buffers.op_vls = op_vls;
  return c;
}
}  // namespace

TEST_CASE("the cut-through rule: the first output edge at or after now, head + latency, and tail + latency "
          "minus the packet's edges", "[network][input_unit]") {
  const SymbolClock edr(kEdrEdge, 1);
  const Time head = 1 * kUs;
  // Same rate in and out: head + latency binds (1.1 us lies in edge 429.6875, so edge 430).
  CHECK(cut_through_time(edr, kEdges, head, head + kOnWire, kLatency, head) == 430 * kEdrEdge);
  // A slow input (tail 2 us after the head): the output may not run ahead of it. tail + latency =
  // 3.1 us, edge 1210.9375 -> 1211; the packet must start 65 edges before: edge 1146.
  CHECK(cut_through_time(edr, kEdges, head, head + 2 * kUs, kLatency, head) == 1146 * kEdrEdge);
  CHECK(1146 * kEdrEdge + kOnWire >= head + 2 * kUs + kLatency);
  CHECK(1145 * kEdrEdge + kOnWire < head + 2 * kUs + kLatency);
  // Later than both (the packet became the head late): the next edge from now.
  CHECK(cut_through_time(edr, kEdges, head, head + kOnWire, kLatency, 5 * kUs) == 1954 * kEdrEdge);
  // Exactly on an edge: that edge.
  CHECK(cut_through_time(edr, kEdges, 1000 * kEdrEdge - kLatency, 1000 * kEdrEdge, kLatency, 0) == 1000 * kEdrEdge);
  // A packet longer on the output than the whole wait: head + latency binds, nothing underflows.
  CHECK(cut_through_time(edr, 100000, head, head + kOnWire, kLatency, 0) == 430 * kEdrEdge);
}

TEST_CASE("input unit: a packet starts on an idle output exactly at its cut-through time",
          "[network][input_unit][cut_through]") {
  auto& b = *new SwitchBench(config(), PortBuffers{});
  b.cable(1);
  b.cable(2);
  StartLog log;
  b.sw->port(2).set_capture(&log);
  REQUIRE(b.sw->port(2).symbols_for(kPayload + 10) == kEdges);
  b.arrive(1, b.packet(1, 2, kPayload), 1 * kUs, 1 * kUs + kOnWire);        // cut through at head + latency
  b.arrive(1, b.packet(2, 2, kPayload), 10 * kUs, 10 * kUs + 2 * kUs);      // a slow input: held back
  // head + 100 ns = 10.1 us: edge 3946; tail + 100 ns = 12.1 us: edge 4727, less 65 edges: 4662.
  CalendarProcess::run_for(20 * kUs);
  ScheduledModule::rethrow_failure();
  REQUIRE(log.starts.size() == 2);
  CHECK(log.starts[0].id == 1);
  CHECK(log.starts[0].at == 430 * kEdrEdge);
  CHECK(log.starts[1].id == 2);
  CHECK(log.starts[1].at == 4662 * kEdrEdge);
  CHECK(b.peer->arrivals_on(2).size() == 2);
  CHECK(b.sw->stats().forwarded == 2);
  CHECK(b.sw->port(1).rx_buffer(0).occupied() == 0);  // each freed its buffer when it had left
}

TEST_CASE("input unit: each VL is a FIFO whose head blocks it, VLs do not block each other, and a head "
          "waits HOQLife at most", "[network][input_unit][R17]") {
  auto& b = *new SwitchBench(config(2), PortBuffers{2, 128, 10});
  b.cable(1);
  b.cable(2, false);  // port 2 never gets credits
  b.cable(3);
  b.sw->set_hoq_life(2, 0);  // 4.096 us
  StartLog log;
  b.sw->port(3).set_capture(&log);
  b.arrive(1, b.packet(1, 2, kPayload), 1000 * kNs, 1000 * kNs + kOnWire);          // VL0, to the stuck port
  b.arrive(1, b.packet(2, 3, kPayload), 1200 * kNs, 1200 * kNs + kOnWire);          // VL0, behind it
  b.arrive(1, b.packet(3, 3, kPayload), 1400 * kNs, 1400 * kNs + kOnWire);          // VL0
  b.arrive(1, b.packet(4, 3, kPayload, 1, 1), 1600 * kNs, 1600 * kNs + kOnWire);    // VL1: passes
  // Packet 1 requests port 2 at edge 430 (1.1008 us), and its HOQLife runs out 4.096 us later.
  const Time expiry = 430 * kEdrEdge + 4096 * kNs;
  REQUIRE(expiry == 2030 * kEdrEdge);
  std::uint64_t before = 99, after = 99;
  std::size_t depth_before = 0;
  probe_at(*b.sw, expiry, [&] {
    before = b.sw->port_discards(2, DropReason::kHoqLifetime);
    depth_before = b.sw->queue_depth(1, 0);
  });
  probe_at(*b.sw, expiry + 1, [&] { after = b.sw->port_discards(2, DropReason::kHoqLifetime); });
  CalendarProcess::run_for(10 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(before == 0);
  CHECK(depth_before == 3);
  CHECK(after == 1);
  CHECK(b.sw->port_discards(1, DropReason::kHoqLifetime) == 0);  // counted at the output
  CHECK(b.sw->stats().discarded == 1);
  CHECK(b.peer->arrivals_on(2).empty());
  // Packet 4 (VL1) went at its own cut-through time (1.7 us: edge 665); 2 and 3 only once 1 was
  // gone, in order: 2 at once, 3 when 2 had left (65 edges on).
  REQUIRE(log.starts.size() == 3);
  CHECK(log.starts[0].id == 4);
  CHECK(log.starts[0].at == 665 * kEdrEdge);
  CHECK(log.starts[1].id == 2);
  CHECK(log.starts[1].at == expiry);
  CHECK(log.starts[2].id == 3);
  CHECK(log.starts[2].at == expiry + kOnWire);
  CHECK(b.sw->queue_depth(1, 0) == 0);
  CHECK(b.sw->port(1).rx_buffer(0).occupied() == 0);
}

TEST_CASE("input unit: a packet older than LifeTimeValue is discarded at its output, its time counted from "
          "its head's arrival", "[network][input_unit][R18]") {
  auto& b = *new SwitchBench(config(), PortBuffers{});
  b.cable(1);
  b.cable(2, false);  // port 2 never gets credits
  b.sw->set_life_time(0);  // 4.096 us
  b.arrive(1, b.packet(1, 2, kPayload), 1000 * kNs, 1000 * kNs + kOnWire);
  b.arrive(1, b.packet(2, 2, kPayload), 1200 * kNs, 1200 * kNs + kOnWire);
  // Packet 1 at 5.096 us; packet 2, head from then on, at 5.296 us (its own arrival + 4.096 us).
  std::uint64_t at_first = 99, after_first = 99, at_second = 99, after_second = 99;
  auto count = [&b] { return b.sw->port_discards(2, DropReason::kSwitchLifetime); };
  probe_at(*b.sw, 5096 * kNs, [&] { at_first = count(); });
  probe_at(*b.sw, 5096 * kNs + 1, [&] { after_first = count(); });
  probe_at(*b.sw, 5296 * kNs, [&] { at_second = count(); });
  probe_at(*b.sw, 5296 * kNs + 1, [&] { after_second = count(); });
  CalendarProcess::run_for(10 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(at_first == 0);
  CHECK(after_first == 1);
  CHECK(at_second == 1);
  CHECK(after_second == 2);
  CHECK(b.sw->port_discards(2, DropReason::kHoqLifetime) == 0);
  CHECK(b.sw->queue_depth(1, 0) == 0);
  CHECK(b.sw->port(1).rx_buffer(0).occupied() == 0);
  CHECK(b.ledger.dropped_count(DropReason::kSwitchLifetime) == 2);
}

TEST_CASE("input unit: a packet the routing unit refuses is discarded at its tail, counted at its input",
          "[network][input_unit][R15]") {
  auto& b = *new SwitchBench(config(), PortBuffers{});
  b.cable(1);
  b.cable(2);
  b.arrive(1, b.packet(1, 7, kPayload), 1 * kUs, 1 * kUs + kOnWire);  // LID 7: no route
  std::uint64_t at_tail = 99;
  std::uint32_t held = 0;
  probe_at(*b.sw, 1 * kUs + kOnWire, [&] {
    at_tail = b.sw->port_discards(1, DropReason::kUnknownDlid);
    held = b.sw->port(1).rx_buffer(0).occupied();
  });
  CalendarProcess::run_for(5 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(at_tail == 0);
  CHECK(held == 33);  // its buffer is held until the tail is in
  CHECK(b.sw->port_discards(1, DropReason::kUnknownDlid) == 1);
  CHECK(b.sw->port(1).rx_buffer(0).occupied() == 0);
  CHECK(b.sw->queue_depth(1, 0) == 0);
}
