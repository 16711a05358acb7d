// The Ethernet L3 switch's rules one at a time, on hand-computed edges: cut-through only onto an
// output no faster than the input, strict priority among the output queues.
#include <catch2/catch.hpp>

#include <vector>

#include "sim/core/time.h"
#include "sim/ethernet/ethernet_link.h"
#include "sim/ethernet/ethernet_switch.h"
#include "sim/transport/opcode.h"
#include "sim/transport/roce/roce_frame.h"
#include "tests/support/roce_endpoint.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

MacAddress host_mac(unsigned h) { return {0x02, 0, 0, 0, 0, static_cast<std::uint8_t>(h)}; }
MacAddress port_mac(unsigned p) { return {0x02, 0, 0, 0, 1, static_cast<std::uint8_t>(p)}; }
IpAddress host_ip(unsigned h) { return IpAddress::v4(10, 0, 0, static_cast<std::uint8_t>(h)); }

// One switch, host h on port h.
EthernetSwitchConfig one_switch(unsigned hosts, bool cut_through) {
  EthernetSwitchConfig c;
  c.num_ports = hosts;
  for (unsigned h = 1; h <= hosts; ++h) {
    c.port_macs.push_back(port_mac(h));
    c.neighbour_macs.push_back(host_mac(h));
    c.routes.add(IpPrefix{host_ip(h), 32}, {static_cast<PortNum>(h)});
  }
  c.cut_through = cut_through;
  return c;
}

// An RC SEND Only from host `from` to host `to` with `payload` bytes (126 bytes of frame for 64).
std::vector<std::uint8_t> send(unsigned from, unsigned to, std::uint32_t payload, std::uint8_t dscp, Psn psn) {
  RoceAddressing a;
  a.src_mac = host_mac(from);
  a.dst_mac = port_mac(from);
  a.src_ip = host_ip(from);
  a.dst_ip = host_ip(to);
  a.dscp = dscp;
  TransportHeaders h;
  h.bth.opcode = kOpcodeRcBase + op::kSendOnly;
  h.bth.dest_qp = 0x12;
  h.bth.psn = psn;
  return build_roce_frame(a, h, payload, nullptr);
}

}  // namespace

// h1 on 25GbE (320 ps a byte), h2 on 100GbE (80 ps), no FEC, no propagation, no switch latency,
// cut-through configured; a 126-byte frame each way, both from time 0.
//   h1 -> h2: onto a faster output the switch waits for the tail: in at 8 + 126 = 134 edges of
//   320 ps = 42.88 ns = edge 536 at 100GbE; out, h2 has the tail at 536 + 134 = 670 x 80 ps = 53.6 ns
//   (cutting through at the head, 46 x 320 ps = 14.72 ns, the output would run out of bytes).
//   h2 -> h1: onto a slower output it cuts through at the head: 46 x 80 ps = 3.68 ns, on the next
//   25GbE edge, 12 (3.84 ns); h1 has the tail at 12 + 134 = 146 x 320 ps = 46.72 ns.
TEST_CASE("an Ethernet switch cuts through only onto an output no faster than the input", "[ethernet]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceEndpoint h1("h1", pool, ledger), h2("h2", pool, ledger);
  EthernetSwitch sw("sw", one_switch(2, true), pool, ledger);
  EthernetLink slow(h1.port(), h1, sw.port(1), sw, EthernetRate{EthernetSpeed::k25G, false}, 0, 0, 1, 2);
  EthernetLink fast(h2.port(), h2, sw.port(2), sw, EthernetRate{EthernetSpeed::k100G, false}, 0, 0, 3, 4);
  h1.send_at(0, {send(1, 2, 64, 0, 1)});
  h2.send_at(0, {send(2, 1, 64, 0, 2)});
  CalendarProcess::run_for(1 * kUs);
  REQUIRE(h2.received().size() == 1);
  REQUIRE(h1.received().size() == 1);
  CHECK(h2.received()[0].tail == 53'600'000);
  CHECK(h1.received()[0].tail == 46'720'000);
  CHECK(h1.received()[0].parsed.ok());
  CHECK(h2.received()[0].parsed.ok());
}

// Strict priority. 100GbE, no FEC or propagation, store-and-forward, no latency. h1 sends A (a
// SEND of 4,096 bytes: a 4,158-byte frame) then B (126 bytes), both priority 0;
// h2 sends C (126 bytes, DSCP 40: class selector 5) at edge 5,000. A's tail is in at 8 + 4,158 =
// 4,166 and it leaves at once; the port is free again at 4,166 + 4,178 = 8,344. B (sent from 4,178,
// in at 4,312) and C (in at 5,134) wait; C goes first although it came later:
//   h3 has A's tail at 4,166 + 4,166 = 8,332, C's at 8,344 + 134 = 8,478, B's at 8,344 + 146 +
//   134 = 8,624 edges of 80 ps.
TEST_CASE("an Ethernet switch's output sends the highest priority first", "[ethernet]") {
  init_time_resolution();
  PacketPool pool;
  PacketLedger ledger;
  RoceEndpoint h1("h1", pool, ledger), h2("h2", pool, ledger), h3("h3", pool, ledger);
  EthernetSwitch sw("sw", one_switch(3, false), pool, ledger);
  const EthernetRate rate{EthernetSpeed::k100G, false};
  EthernetLink l1(h1.port(), h1, sw.port(1), sw, rate, 0, 0, 1, 2);
  EthernetLink l2(h2.port(), h2, sw.port(2), sw, rate, 0, 0, 3, 4);
  EthernetLink l3(h3.port(), h3, sw.port(3), sw, rate, 0, 0, 5, 6);
  const auto a = send(1, 3, 4096, 0, 1);
  REQUIRE(a.size() == 4158);
  h1.send_at(0, {a, send(1, 3, 64, 0, 2)});
  h2.send_at(5000 * Time{80'000}, {send(2, 3, 64, 40, 3)});
  CalendarProcess::run_for(2 * kUs);
  const auto& rx = h3.received();
  REQUIRE(rx.size() == 3);
  CHECK(rx[0].parsed.h.bth.psn == 1);
  CHECK(rx[1].parsed.h.bth.psn == 3);
  CHECK(rx[2].parsed.h.bth.psn == 2);
  CHECK(rx[0].tail == 8332 * Time{80'000});
  CHECK(rx[1].tail == 8478 * Time{80'000});
  CHECK(rx[2].tail == 8624 * Time{80'000});
}
