// The switch's management port 0 (management_port.h): an SMP for the switch reaches its agent
// whole, at its tail; without an agent it is dropped; the agent's own SMPs go out of a cabled port
// and are dropped, counted, on one that is not. A switch on a bench (switch_bench.h), no fabric.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/calendar_process.h"
#include "tests/network/switch_bench.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {
// Records what reaches it, and when.
struct Agent : ManagementAgent {
  struct Got {
    Time at;
    PortNum port;
    std::uint64_t id;
  };
  PacketPool* pool = nullptr;
  std::vector<Got> got;
  void on_management_packet(Packet* p, PortNum port) override {
    got.push_back({ScheduledModule::now(), port, p->id});
    pool->release(p);
  }
};

SwitchConfig with_lid(Lid lid) {
  SwitchConfig c;
  c.num_ports = 3;
  c.lid = lid;
  return c;
}
}  // namespace

TEST_CASE("management port: SMPs to the permissive LID or the switch's LID, and a GMP to its LID, reach the "
          "agent at their tail, their buffer free", "[network][management]") {
  auto& b = *new SwitchBench(with_lid(10), PortBuffers{});
  b.cable(1);
  Agent agent;
  agent.pool = &b.pool;
  b.sw->set_management_agent(&agent);
  const Time tail = 1 * kUs + 9 * kEdrEdge;  // 256-byte payloads: 9 edges
  b.arrive(1, b.packet(1, kLidPermissive, 256, kVl15), 1 * kUs, tail);
  b.arrive(1, b.packet(2, 10, 256, kVl15), 2 * kUs, 2 * kUs + 9 * kEdrEdge);
  b.arrive(1, b.packet(3, 10, 256, 0), 3 * kUs, 3 * kUs + 9 * kEdrEdge);
  std::size_t at_tail = 99;
  std::uint32_t vl15_held = 0;
  probe_at(*b.sw, tail, [&] {
    at_tail = agent.got.size();
    vl15_held = b.sw->port(1).vl15_occupied();
  });
  CalendarProcess::run_for(5 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(at_tail == 0);
  CHECK(vl15_held == 5);
  REQUIRE(agent.got.size() == 3);
  CHECK(agent.got[0].at == tail);
  CHECK(agent.got[0].port == 1);
  CHECK(agent.got[1].id == 2);
  CHECK(agent.got[2].id == 3);
  CHECK(b.sw->port(1).vl15_occupied() == 0);
  CHECK(b.sw->port(1).rx_buffer(0).occupied() == 0);
  CHECK(b.sw->stats().discarded == 0);
}

TEST_CASE("management port: without an agent an SMP for the switch is dropped, and the agent's SMPs go out of a "
          "cabled port and are dropped, counted, on another", "[network][management]") {
  auto& b = *new SwitchBench(with_lid(10), PortBuffers{});
  b.cable(1);
  b.cable(2);
  b.arrive(1, b.packet(1, kLidPermissive, 256, kVl15), 1 * kUs, 1 * kUs + 9 * kEdrEdge);
  probe_at(*b.sw, 2 * kUs, [&b] {
    b.sw->send_management(2, b.packet(2, kLidPermissive, 256, kVl15));
    b.sw->send_management(3, b.packet(3, kLidPermissive, 256, kVl15));  // not cabled
  });
  CalendarProcess::run_for(5 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(b.sw->port_discards(1, DropReason::kNoQp) == 1);
  CHECK(b.sw->port(1).vl15_occupied() == 0);
  const auto out = b.peer->arrivals_on(2);
  REQUIRE(out.size() == 1);
  CHECK(out[0].id == 2);
  CHECK(out[0].vl == kVl15);
  CHECK(b.sw->port_discards(3, DropReason::kLinkDown) == 1);
  CHECK(b.ledger.management_dropped_count(DropReason::kLinkDown) == 1);
  CHECK(b.sw->stats().discarded == 2);
}

TEST_CASE("management port: the agent's SMPs waiting for a port that goes down are dropped, counted and freed",
          "[network][management]") {
  auto& b = *new SwitchBench(with_lid(10), PortBuffers{});
  b.cable(2);
  probe_at(*b.sw, 2 * kUs, [&b] {
    // The first goes at once; the other two wait for it.
    for (std::uint64_t id : {1, 2, 3}) {
      Packet* p = b.packet(id, kLidPermissive, 256, kVl15);
      p->management = true;  // an SMP, as the SMA's builder marks it
      b.sw->send_management(2, p);
    }
  });
  probe_at(*b.sw, 2 * kUs + 2 * kEdrEdge, [&b] {
    b.sw->port(2).link_down();
    b.peer->port(2).link_down();
  });
  CalendarProcess::run_for(5 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(b.sw->port_discards(2, DropReason::kLinkDown) == 2);
  CHECK(b.ledger.management_dropped_count(DropReason::kLinkDown) == 2);
  // The one on the wire is lost at the far end; nothing is left over.
  CHECK(b.peer->arrivals_on(2).empty());
  CHECK(b.pool.live() == 0);
}
