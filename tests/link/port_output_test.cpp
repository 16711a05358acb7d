// The port output stage (sim/link/port_output.h) driven without a fabric: one node's output and a
// far port on a bare cable, a stub source of data packets per VL, and the far port recording what
// arrives. Checks the order of the node's SMPs, GMPs and arbitrated data, the credit-stall time,
// the wait for a busy port, and that SMPs waiting for a port that went down are dropped.
#include <catch2/catch.hpp>

#include <deque>
#include <memory>
#include <systemc>
#include <vector>

#include "sim/core/calendar_process.h"
#include "sim/core/packet.h"
#include "sim/core/scheduled_module.h"
#include "sim/link/credit_counter.h"
#include "sim/link/link.h"
#include "sim/link/port_output.h"
#include "sim/phy/serialization.h"
#include "sim/transport/ud_send_packet.h"

using namespace ibfsim;

namespace {

constexpr Time kEdge = 2'560'000;  // 4x EDR: one 64b/66b block per lane every 2.56 ns

Packet* make_packet(PacketPool& pool, std::uint8_t vl, std::uint32_t payload, std::uint64_t id) {
  Packet* p = pool.acquire();
  UdSendFields f;
  f.vl = vl;
  f.dlid = 2;
  f.slid = 1;
  f.dest_qp = vl == kVl15 ? 0 : 0x100;
  build_ud_send(*p, f, payload, nullptr);
  p->id = id;
  return p;
}

// A node with one port: its output stage takes data from per-VL FIFOs (the stub source).
struct Node : ScheduledModule, PortOwner, PortOutput::Source {
  Node(const char* name, PortBuffers buffers, bool survey_when_busy)
      : ScheduledModule(name), port(*this, *this, 1, buffers, std::string(name) + "/1"),
        out(port, *this, default_vl_arbitration(buffers.op_vls), survey_when_busy) {}
  LinkPort port;
  PortOutput out;
  PacketPool* pool = nullptr;
  std::array<std::deque<Packet*>, kMaxDataVls + 1> queues;
  std::vector<std::pair<Time, std::uint64_t>> arrived;  // (head time, packet id) at this port
  std::vector<std::uint64_t> dropped_own;

  void queue(Packet* p) {
    queues[p->header[0] >> 4].push_back(p);
    out.try_send();
  }
  // PortOutput::Source
  std::uint16_t waiting_vls() const override {
    std::uint16_t m = 0;
    for (unsigned v = 0; v <= kMaxDataVls; ++v)
      if (!queues[v].empty()) m |= static_cast<std::uint16_t>(1u << v);
    return m;
  }
  PortOutput::Candidacy candidate(std::uint8_t vl) override {
    return port.may_send(vl, credits_for_bytes(queues[vl].front()->wire_bytes())) ? PortOutput::Candidacy::kReady
                                                                                   : PortOutput::Candidacy::kBlocked;
  }
  Packet* take(std::uint8_t vl) override {
    Packet* p = queues[vl].front();
    queues[vl].pop_front();
    return p;
  }
  void sent(std::uint8_t, Packet*, Time) override {}
  bool blocked_after_send(std::uint8_t vl) override {
    return !queues[vl].empty() && !port.may_send(vl, credits_for_bytes(queues[vl].front()->wire_bytes()));
  }
  void tx_done(Packet*) override {}
  void drop_own(Packet* p, DropReason) override {
    dropped_own.push_back(p->id);
    pool->release(p);
  }
  // PortOwner
  void on_packet_head(LinkPort& lp, Packet* p, Time head, Time) override {
    arrived.emplace_back(head, p->id);
    lp.free_rx(p->header[0] >> 4, credits_for_bytes(p->wire_bytes()));
    pool->release(p);
  }
  void on_tx_done(LinkPort&, Packet* p) override { out.tx_done(p); }
  void on_output_free(LinkPort&) override { out.try_send(); }
  void on_credits(LinkPort&) override { out.try_send(); }
  void on_link_discard(LinkPort&, Packet* p, DropReason) override { pool->release(p); }
};

// Calls fn() at a simulated time.
struct At {
  std::function<void()> fn;
  void fire() { fn(); }
};

struct Bench {
  explicit Bench(PortBuffers far_buffers = PortBuffers{2, 128, 10}, bool survey_when_busy = false)
      : a("a", PortBuffers{2, 128, 10}, survey_when_busy), b("b", far_buffers, survey_when_busy),
        link(a.port, a, b.port, b, LinkRate{LinkSpeed::kEdr, 4}, 0, 0, 1) {
    a.pool = b.pool = &pool;
    a.port.set_skip_interval(0);
    b.port.set_skip_interval(0);
    a.port.link_up(PortState::kActive);
    b.port.link_up(PortState::kActive);
  }
  PacketPool pool;
  Node a, b;
  Link link;
};

}  // namespace

TEST_CASE("the port output sends the node's SMPs first, then its GMPs, then arbitrated data", "[link][port_output]") {
  init_time_resolution();
  Bench t;
  At post{[&] {
    // Queued in the opposite order, all at once, while the port is idle and credits are in.
    t.a.queue(make_packet(t.pool, 0, 256, 1));       // data, VL0
    t.a.out.send_gsi(make_packet(t.pool, 1, 256, 2));  // a GMP on VL1
    t.a.out.send_management(make_packet(t.pool, kVl15, 256, 3));
    t.a.queue(make_packet(t.pool, 1, 256, 4));       // data, VL1
  }};
  t.a.schedule<&At::fire>(1 * kUs, &post);
  CalendarProcess::run_for(10 * kUs);
  // The first data packet went at once when queued (the port was idle); then the SMP, the GMP and
  // the other data packet, back to back as each one's last edge left.
  std::vector<std::uint64_t> order;
  for (const auto& [head, id] : t.b.arrived) order.push_back(id);
  CHECK(order == std::vector<std::uint64_t>{1, 3, 2, 4});
  const std::uint64_t s = t.a.port.symbols_for(make_packet(t.pool, 0, 256, 0)->wire_bytes());
  REQUIRE(t.b.arrived.size() == 4);
  for (std::size_t i = 1; i < 4; ++i) CHECK(t.b.arrived[i].first - t.b.arrived[i - 1].first == s * kEdge);
}

// The far end has a buffer of 9 blocks per VL: one packet with 512 bytes of payload (546 bytes on
// the wire, 9 blocks) fills it. b frees each packet at its head, and its flow-control packet
// returns the credits h + fc edges after the first packet started (no propagation), while the
// first packet (s edges) is still on the wire. Surveying while busy (HCAs), the output sees the
// second packet lack credits when it is queued, just after the first started, and sees the credits
// return: the VL stalls h + fc edges. Surveying only when the port is free (switches), it looks
// again when the first packet has ended, and the credits are back by then: no stall is seen.
namespace {
void check_stall(bool exact) {
  init_time_resolution();
  Bench t(PortBuffers{2, 9, 10}, exact);
  At post{[&] {
    t.a.queue(make_packet(t.pool, 0, 512, 1));
    t.a.queue(make_packet(t.pool, 0, 512, 2));
  }};
  t.a.schedule<&At::fire>(1000 * kEdge, &post);  // on an edge: the first packet starts there
  CalendarProcess::run_for(20 * kUs);
  REQUIRE(t.b.arrived.size() == 2);
  const LinkRate rate{LinkSpeed::kEdr, 4};
  const std::uint64_t s = symbols_for_packet(rate, 546), h = symbols_until_bytes(rate, 8),
                      fc = symbols_for_packet(rate, 6);
  REQUIRE(h + fc < s);
  // The second packet starts as the first ends, in both modes.
  CHECK(t.b.arrived[1].first - t.b.arrived[0].first == s * kEdge);
  CHECK(t.a.port.vl_stats(0).credit_stall == (exact ? (h + fc) * kEdge : 0));
}
}  // namespace

TEST_CASE("a VL without credits stalls until its credits return, when the output surveys while busy",
          "[link][port_output]") {
  check_stall(true);
}

TEST_CASE("a VL without credits is seen to stall only when the port is free, when the output surveys only then",
          "[link][port_output]") {
  check_stall(false);
}

TEST_CASE("a busy port takes the next packet at the edge the last one ended", "[link][port_output]") {
  init_time_resolution();
  Bench t;
  At post{[&] {
    t.a.queue(make_packet(t.pool, 0, 2048, 1));
    t.a.queue(make_packet(t.pool, 0, 64, 2));
  }};
  t.a.schedule<&At::fire>(1 * kUs, &post);
  CalendarProcess::run_for(10 * kUs);
  REQUIRE(t.b.arrived.size() == 2);
  const std::uint64_t s1 = t.a.port.symbols_for(make_packet(t.pool, 0, 2048, 0)->wire_bytes());
  CHECK(t.b.arrived[1].first - t.b.arrived[0].first == s1 * kEdge);
}

TEST_CASE("the node's SMPs waiting for a port that goes down are dropped, counted by the node", "[link][port_output]") {
  init_time_resolution();
  Bench t;
  At post{[&] {
    t.a.queue(make_packet(t.pool, 0, 4096, 1));  // keeps the port busy
    t.a.out.send_management(make_packet(t.pool, kVl15, 256, 7));
    t.a.out.send_management(make_packet(t.pool, kVl15, 256, 8));
  }};
  At down{[&] {
    t.a.port.link_down();
    t.b.port.link_down();
  }};
  t.a.schedule<&At::fire>(1 * kUs, &post);
  t.a.schedule<&At::fire>(1 * kUs + 10 * kEdge, &down);
  CalendarProcess::run_for(10 * kUs);
  CHECK(t.a.dropped_own == std::vector<std::uint64_t>{7, 8});
  CHECK(t.a.out.queued_own() == 0);
}
