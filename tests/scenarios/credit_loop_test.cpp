// With a receive buffer that holds exactly one packet, a sender can only start the next packet
// when the flow-control packet for the previous one is back: the spacing of packet starts is
// serialization + propagation + FC packet time + propagation, exactly.
#include <catch2/catch.hpp>

#include "sim/core/calendar_process.h"
#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

TEST_CASE("credit return latency is exact: a one-packet buffer spaces packets by the credit loop",
          "[scenarios][credits]") {
  // h1 -- h2 back to back, 4x EDR, 2 m (4 edges of 2.56 ns). h2 buffers 33 blocks = one 2082-byte
  // packet. Packet: 66 edges. h2 consumes at the tail and sends an FC packet at once (1 edge: 8
  // slots in a 32-byte block time); it reaches h1 4 edges later. So starts are 66 + 4 + 1 + 4 = 75
  // edges = 192 ns apart. The link is up after training (a whole number of edges: 7,072), and the
  // packets are posted 1 us after that.
  Fabric& f = build_fabric(
      "defaults: {link: {speed: EDR, width: 4x, length: 2m}, hca: {buffer_credits: 33}}\n"
      "nodes: [{name: h1, type: hca}, {name: h2, type: hca}]\n"
      "cables: [{from: h1/1, to: h2/1}]\n");
  Hca& h1 = *f.hca(0);
  Hca& h2 = *f.hca(1);
  Poster post;
  aim(post, h1, h2, 2048, 10);
  Recorder rec;
  h1.set_send_observer(&rec);
  h2.set_delivery_observer(&rec);
  const Time up = f.training(0).duration;
  REQUIRE(up % 2'560'000 == 0);
  fire_at(h1, up + 1 * kUs, &post);
  run_for(f, up + 20 * kUs);
  REQUIRE(rec.injected.size() == 10);
  REQUIRE(rec.delivered.size() == 10);
  CHECK(rec.injected[0] == up + 391 * 2'560'000ull);  // first edge at or after 1 us after link up
  for (std::size_t i = 1; i < rec.injected.size(); ++i) CHECK(rec.injected[i] - rec.injected[i - 1] == 75 * 2'560'000ull);
  for (const Delivery& d : rec.delivered) CHECK(d.delivered - d.injected == (66 + 4) * 2'560'000ull);
  // Every packet freed its blocks and the final flow-control packets were counted on both sides.
  CHECK(h1.port().stats().rx_flow_control == h2.port().stats().tx_flow_control);
  // Link init (one per operational VL: 8 by default) + one per freed packet; no periodic refresh
  // falls due within 65,536 edges.
  CHECK(h2.port().stats().tx_flow_control == 8 + 10);
}

TEST_CASE("with enough buffer the same sender runs back to back at line rate", "[scenarios][credits]") {
  Fabric& f = build_fabric(
      "defaults: {link: {speed: EDR, width: 4x, length: 2m}, hca: {buffer_credits: 256}}\n"
      "nodes: [{name: h1, type: hca}, {name: h2, type: hca}]\n"
      "cables: [{from: h1/1, to: h2/1}]\n");
  Hca& h1 = *f.hca(0);
  Hca& h2 = *f.hca(1);
  Poster post;
  aim(post, h1, h2, 2048, 20);
  Recorder rec;
  h1.set_send_observer(&rec);
  fire_at(h1, f.training(0).duration + 1 * kUs, &post);
  run_for(f, f.training(0).duration + 20 * kUs);
  REQUIRE(rec.injected.size() == 20);
  // FC packets from h2 travel on the other direction, so h1's sends are never delayed: 66 edges.
  for (std::size_t i = 1; i < rec.injected.size(); ++i) CHECK(rec.injected[i] - rec.injected[i - 1] == 66 * 2'560'000ull);
}

TEST_CASE("queued packets leave back to back without waiting for a flow-control packet to wake the sender",
          "[scenarios][credits]") {
  // 2 KiB (66 edges), 64 B (4 edges: 100 slots in 32-byte rows), 2 KiB. The first flow-control
  // packet from h2 arrives 66 + 4 + 1 + 4 edges after the first start, later than the second ends.
  Fabric& f = build_fabric(
      "defaults: {link: {speed: EDR, width: 4x, length: 2m}}\n"
      "nodes: [{name: h1, type: hca}, {name: h2, type: hca}]\n"
      "cables: [{from: h1/1, to: h2/1}]\n");
  Hca& h1 = *f.hca(0);
  Hca& h2 = *f.hca(1);
  Poster a, b, c;
  aim(a, h1, h2, 2048);
  aim(b, h1, h2, 64);
  aim(c, h1, h2, 2048);
  Recorder rec;
  h1.set_send_observer(&rec);
  const Time up = f.training(0).duration;
  for (Poster* p : {&a, &b, &c}) fire_at(h1, up + 1 * kUs, p);
  run_for(f, up + 20 * kUs);
  REQUIRE(rec.injected.size() == 3);
  CHECK(rec.injected[1] - rec.injected[0] == 66 * 2'560'000ull);
  CHECK(rec.injected[2] - rec.injected[1] == 4 * 2'560'000ull);
}
