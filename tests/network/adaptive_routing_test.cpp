// Adaptive routing in a switch (adaptive_routing.h, adaptive_selector.h): the choice among an AR
// group's ports by free credits, then queued blocks, then round robin, packet by packet on a
// switch on a bench (switch_bench.h), with every choice worked out by hand; SLs without AR and
// flowlets; the pure choice function; congestion notifications' decisions (ar_congestion_notification.h).
#include <catch2/catch.hpp>

#include "sim/core/calendar_process.h"
#include "tests/network/switch_bench.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

std::size_t choose(std::vector<ArCandidate> c, PortNum last, PortNum keep = 0, unsigned margin = 1) {
  return ar_choose(c.data(), c.size(), last, keep, margin);
}

// Ports 1..5; LID 7 goes out of port 2 by the LFT, and has AR group 1 = {2, 3, 4}.
SwitchConfig five_ports() {
  SwitchConfig c;
  c.num_ports = 5;
  c.latency = 100 * kNs;
  std::vector<PortNum> lft(8, kNoRoute);
  lft[7] = 2;
  c.lft = Lft(lft);
  return c;
}

// AR on SL 0 only, credit levels of half the next buffer (256 of 512 blocks).
void enable_ar(Switch& sw, Time flowlet_gap = 0) {
  ArTable& t = sw.routing_unit().adaptive();
  t.set_settings(ArSettings{true, false, 0x0001, flowlet_gap, 2});
  t.set_group(1, {2, 3, 4});
  t.set_group_of(7, 1);
}

// A raw packet of 256 payload bytes (5 blocks, 9 edges on the wire) from `slid` to LID 7 on `sl`.
Packet* packet(SwitchBench& b, std::uint64_t id, Lid slid, std::uint8_t sl = 0) {
  Packet* p = b.packet(id, 7, 256, 0, sl);
  encode_lrh({0, 0, sl, kLnhRaw, 7, static_cast<std::uint16_t>(p->pkt_len_words()), slid}, p->header.data());
  return p;
}

std::vector<std::uint64_t> ids_on(const SwitchBench& b, PortNum port) {
  std::vector<std::uint64_t> out;
  for (const Peer::Arrival& a : b.peer->arrivals_on(port)) out.push_back(a.id);
  return out;
}

}  // namespace

TEST_CASE("ar_choose: the highest credit level, then the flow's port, then the fewest queued blocks, then the "
          "first port after the last choice",
          "[network][adaptive_routing]") {
  // The level decides whatever the queues.
  CHECK(choose({{2, 1, 50}, {3, 2, 90}, {4, 0, 0}}, 0) == 1);
  // Equal levels: the shorter queue.
  CHECK(choose({{2, 1, 50}, {3, 1, 40}, {4, 1, 45}}, 0) == 1);
  // ... unless the flow has a port among the best: it stays.
  CHECK(choose({{2, 1, 50}, {3, 1, 40}, {4, 1, 45}}, 0, 4) == 2);
  CHECK(choose({{2, 1, 50}, {3, 2, 40}, {4, 1, 45}}, 0, 4) == 1);
  // Equal levels and queues: round robin from the port after `last`, cyclically.
  CHECK(choose({{2, 1, 5}, {3, 1, 5}, {4, 1, 5}}, 0) == 0);
  CHECK(choose({{2, 1, 5}, {3, 1, 5}, {4, 1, 5}}, 2) == 1);
  CHECK(choose({{2, 1, 5}, {3, 1, 5}, {4, 1, 5}}, 3) == 2);
  CHECK(choose({{2, 1, 5}, {3, 1, 5}, {4, 1, 5}}, 4) == 0);
  CHECK(choose({{2, 1, 5}, {4, 1, 5}}, 3) == 1);
  CHECK(choose({{9, 7, 7}}, 9) == 0);
}

TEST_CASE("ar_choose with a flowlet margin: the flow leaves its port only for one that many levels better",
          "[network][adaptive_routing]") {
  // Port 4 (the flow's) at level 1, port 3 at 2: margin 1 moves, margin 2 stays.
  const std::vector<ArCandidate> c{{2, 0, 0}, {3, 2, 40}, {4, 1, 45}};
  CHECK(choose(c, 0, 4, 1) == 1);
  CHECK(choose(c, 0, 4, 2) == 2);
  // Two levels better is enough with margin 2, not with 3.
  const std::vector<ArCandidate> d{{2, 3, 60}, {3, 2, 40}, {4, 1, 45}};
  CHECK(choose(d, 0, 4, 2) == 0);
  CHECK(choose(d, 0, 4, 3) == 2);
  // A flow without a port, or whose port cannot take the packet (not a candidate): the best.
  CHECK(choose(d, 0, 0, 3) == 0);
  CHECK(choose(d, 0, 5, 3) == 0);
  // A congestion notification still moves it whatever the margin.
  const std::vector<ArCandidate> e{{2, 0, 60, false}, {3, 0, 40, false}, {4, 3, 45, true}};
  CHECK(choose(e, 0, 4, 8) == 1);
}

TEST_CASE("ar_credit_level: credits less what is queued, in levels of the far buffer", "[network][adaptive_routing]") {
  // 2 levels of a 512-block buffer: 256 free blocks or more is level 1, fewer 0, a queue longer
  // than the credits negative.
  CHECK(ar_credit_level(512, 0, 512, 2) == 2);
  CHECK(ar_credit_level(507, 0, 512, 2) == 1);
  CHECK(ar_credit_level(300, 44, 512, 2) == 1);
  CHECK(ar_credit_level(300, 45, 512, 2) == 0);
  CHECK(ar_credit_level(0, 0, 512, 2) == 0);
  CHECK(ar_credit_level(0, 1, 512, 2) == -1);
  CHECK(ar_credit_level(10, 300, 512, 2) == -2);
  // 0 levels: every block counts.
  CHECK(ar_credit_level(300, 45, 512, 0) == 255);
  CHECK(ar_credit_level(3, 5, 512, 0) == -2);
}

TEST_CASE("adaptive routing: each packet takes, when it may leave, the group port with the best credit level, "
          "then the shortest queue, then the next in turn",
          "[network][adaptive_routing]") {
  auto& b = *new SwitchBench(five_ports(), PortBuffers{1, 512, 10});
  // Port 3's far end never comes up: it never has credits (level 0), so it never wins against
  // ports 2 and 4 (512 credits, level 1 or 2) although nothing ever waits for it.
  for (PortNum p : {1, 2, 4, 5}) b.cable(p);
  b.cable(3, false);
  enable_ar(*b.sw);
  // Four packets on input 1, 20 ns apart. Each chooses when it is at the head and may leave: the
  // first at 1.1 us, each next one as the one before has left (9 edges later), when nothing waits
  // for ports 2 and 4 and both have at least 256 credits: level 1 or 2... the one just used has 5
  // credits fewer until the next switch returns them (level 1), the other 512 (level 2), so the
  // packets alternate: 2 (both at 2, round robin from none), 4, 2, 4.
  for (std::uint64_t i = 0; i < 4; ++i) {
    const Time head = 1 * kUs + i * 20 * kNs;
    b.arrive(1, packet(b, i + 1, 1), head, head + 9 * kEdrEdge);
  }
  // An SL 1 packet (no AR on SL 1) takes the LFT's port 2.
  b.arrive(5, packet(b, 10, 1, 1), 2 * kUs, 2 * kUs + 9 * kEdrEdge);
  CalendarProcess::run_for(5 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(ids_on(b, 2) == std::vector<std::uint64_t>{1, 3, 10});
  CHECK(ids_on(b, 4) == std::vector<std::uint64_t>{2, 4});
  CHECK(ids_on(b, 3).empty());
  const ArStats& s = b.sw->adaptive_selector().stats();
  CHECK(s.adaptive == 4);
  CHECK(s.off_static == 2);
  CHECK(s.flowlet_kept == 0);
  CHECK(s.fell_back == 0);
  CHECK(b.sw->adaptive_selector().chosen(2) == 2);
  CHECK(b.sw->adaptive_selector().chosen(4) == 2);
  // Everything has left: the queue counts are back to zero.
  for (PortNum p = 1; p <= 5; ++p) CHECK(b.sw->queued_blocks(p, 0) == 0);
}

TEST_CASE("adaptive routing with flowlets: a flow keeps its port while its packets come closer than the gap, "
          "and after a longer silence stays where it is unless another port is better",
          "[network][adaptive_routing]") {
  auto& b = *new SwitchBench(five_ports(), PortBuffers{1, 512, 10});
  for (PortNum p : {1, 2, 4, 5}) b.cable(p);
  b.cable(3, false);
  enable_ar(*b.sw, 50 * kNs);
  const Time t0 = 1 * kUs;
  // Flow A (SLID 1) on input 1: packets 1-3 at 0, 20, 40 ns choose at 100 ns, then as each one
  // before has left (9 edges, 23 ns apart): 1 takes port 2 (round robin), 2 and 3 keep it.
  // Flow B (SLID 9) on input 5, at 30 ns, chooses at 130 ns: ports 2 and 4 have the same level, but
  // packet 2 is waiting for port 2 (5 blocks): port 4.
  // Flow A's packet 4 at 300 ns chooses at 400 ns, 254 ns after packet 3 (more than the gap):
  // ports 2 and 4 are level 2 again, and the flow stays on port 2.
  auto send = [&](PortNum in, std::uint64_t id, Lid slid, Time at) {
    b.arrive(in, packet(b, id, slid), t0 + at, t0 + at + 9 * kEdrEdge);
  };
  send(1, 1, 1, 0);
  send(1, 2, 1, 20 * kNs);
  send(1, 3, 1, 40 * kNs);
  send(5, 4, 9, 30 * kNs);
  send(1, 5, 1, 300 * kNs);
  CalendarProcess::run_for(5 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(ids_on(b, 2) == std::vector<std::uint64_t>{1, 2, 3, 5});
  CHECK(ids_on(b, 4) == std::vector<std::uint64_t>{4});
  const ArStats& s = b.sw->adaptive_selector().stats();
  CHECK(s.adaptive == 5);
  CHECK(s.flowlet_kept == 2);
  CHECK(s.off_static == 1);
}

TEST_CASE("adaptive routing: a group port that is not Active is never chosen", "[network][adaptive_routing]") {
  auto& b = *new SwitchBench(five_ports(), PortBuffers{1, 512, 10});
  for (PortNum p = 1; p <= 5; ++p) b.cable(p);
  enable_ar(*b.sw);
  b.sw->port(2).set_state(PortState::kInit);  // cannot carry data
  b.sw->port(4).set_state(PortState::kInit);
  // Only port 3 is left: both packets go there.
  b.arrive(1, packet(b, 1, 1), 1 * kUs, 1 * kUs + 9 * kEdrEdge);
  b.arrive(1, packet(b, 2, 1), 1 * kUs + 20 * kNs, 1 * kUs + 20 * kNs + 9 * kEdrEdge);
  CalendarProcess::run_for(3 * kUs);
  ScheduledModule::rethrow_failure();
  CHECK(ids_on(b, 3) == std::vector<std::uint64_t>{1, 2});
  CHECK(b.sw->adaptive_selector().stats().off_static == 2);
  CHECK(b.sw->adaptive_selector().stats().fell_back == 0);
}

TEST_CASE("fault notification: the packet's bytes, and what is not one", "[network][adaptive_routing]") {
  Packet p;
  build_fault_notification(p, FaultNotification{2, {0x0005, 0x0123, 0xBFFF}}, 0x0042);
  // LRH: VL15, LVer 0 | SL 0, LNH 1 | DLID 0xFFFF | PktLen 5 words (8 + 12 + 0 ICRC) | SLID 0x42.
  CHECK(p.header[0] == 0xF0);
  CHECK(p.header[1] == 0x01);
  CHECK(p.header[2] == 0xFF);
  CHECK(p.header[3] == 0xFF);
  CHECK(p.header[5] == 5);
  CHECK(p.header[6] == 0x00);
  CHECK(p.header[7] == 0x42);
  CHECK(p.payload == std::vector<std::uint8_t>{0x01, 2, 0, 3, 0x00, 0x05, 0x01, 0x23, 0xBF, 0xFF, 0, 0});
  CHECK(p.wire_bytes() == 22);
  CHECK(p.management);
  CHECK(is_fault_notification(p.header.data()));
  FaultNotification back;
  REQUIRE(parse_fault_notification(p, back));
  CHECK(back.hops == 2);
  CHECK(back.lids == std::vector<Lid>{5, 0x123, 0xBFFF});
  // A count beyond the payload, another type: not one.
  p.payload[3] = 5;
  CHECK_FALSE(parse_fault_notification(p, back));
  p.payload[3] = 3;
  p.payload[0] = 3;
  CHECK_FALSE(parse_fault_notification(p, back));
  // Type 2: a congestion notification (ar_congestion_notification.h), the same packet otherwise.
  FaultNotification congestion;
  congestion.type = kArNotifyCongestion;
  congestion.lids = {0x0107};
  build_fault_notification(p, congestion, 0x0042);
  CHECK(p.payload == std::vector<std::uint8_t>{0x02, 0, 0, 1, 0x01, 0x07, 0, 0});
  REQUIRE(parse_fault_notification(p, back));
  CHECK(back.type == kArNotifyCongestion);
  CHECK(back.lids == std::vector<Lid>{0x107});
}

TEST_CASE("congestion notifications: an output queue at the threshold notifies once per hold, per output and VL",
          "[network][adaptive_routing]") {
  ArnSendFilter f;
  const Time hold = 10 * kUs;
  // Below the threshold (100 blocks), or threshold 0 (off): nothing.
  CHECK_FALSE(f.should_notify(3, 0, 99, 100, 1 * kUs, hold));
  CHECK_FALSE(f.should_notify(3, 0, 5000, 0, 1 * kUs, hold));
  // At it: one notification, then output 3 VL 0 is quiet until 11 us.
  CHECK(f.should_notify(3, 0, 100, 100, 1 * kUs, hold));
  CHECK_FALSE(f.should_notify(3, 0, 400, 100, 2 * kUs, hold));
  CHECK_FALSE(f.should_notify(3, 0, 400, 100, 11 * kUs - 1, hold));
  // Another output, another VL of the same output: their own.
  CHECK(f.should_notify(4, 0, 100, 100, 2 * kUs, hold));
  CHECK(f.should_notify(3, 1, 100, 100, 2 * kUs, hold));
  // Output 3 VL 0 again from 11 us.
  CHECK(f.should_notify(3, 0, 100, 100, 11 * kUs, hold));
  CHECK_FALSE(f.should_notify(3, 0, 100, 100, 12 * kUs, hold));
}

TEST_CASE("congestion notifications: a (DLID, port) is ranked last until its hold ends, and ar_choose ranks it "
          "below every other port whatever its credits and the flow",
          "[network][adaptive_routing]") {
  ArnPenalties pen;
  CHECK_FALSE(pen.penalized(7, 2, 0));
  pen.penalize(7, 2, 5 * kUs);
  CHECK(pen.penalized(7, 2, 5 * kUs - 1));
  CHECK_FALSE(pen.penalized(7, 2, 5 * kUs));
  CHECK_FALSE(pen.penalized(7, 3, 1 * kUs));
  CHECK_FALSE(pen.penalized(8, 2, 1 * kUs));
  // A later hold extends it, an earlier one does not shorten it.
  pen.penalize(7, 2, 8 * kUs);
  pen.penalize(7, 2, 6 * kUs);
  CHECK(pen.penalized(7, 2, 7 * kUs));
  pen.clear();
  CHECK_FALSE(pen.penalized(7, 2, 7 * kUs));
  // Port 2, penalized, loses to port 3 two levels below it, and even as the flow's own port.
  CHECK(choose({{2, 2, 0, true}, {3, 0, 90}}, 0) == 1);
  CHECK(choose({{2, 1, 0, true}, {3, 1, 90}, {4, 1, 50}}, 0, 2) == 2);
  // Among penalized ports the usual order holds; a port not penalized wins over them all.
  CHECK(choose({{2, 1, 50, true}, {3, 2, 40, true}}, 0) == 1);
  CHECK(choose({{2, 1, 50, true}, {3, 2, 40, true}, {4, -1, 400}}, 0) == 2);
}
