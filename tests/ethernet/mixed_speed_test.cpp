// Ethernet links of different speeds in one fabric, from a topology whose cables state their own
// (`speed: 25GbE`, fabric/ethernet_topology.h): h1 on 25GbE, h2 on 100GbE, one switch between
// them. One RoCE v2 SEND each way at zero load, its time computed by hand from each link's byte
// clock, RS-FEC blocks and decoder, propagation and the switch: onto the faster output the switch
// must store the frame whole (cutting through would run its output out of bytes), onto the slower
// one it cuts through.
#include <catch2/catch.hpp>

#include <yaml-cpp/yaml.h>

#include "sim/ethernet/l3_forwarding.h"
#include "sim/fabric/ethernet_topology.h"
#include "sim/fabric/topology_yaml.h"
#include "sim/transport/opcode.h"
#include "sim/transport/roce/roce_frame.h"
#include "tests/support/roce_fabric.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

// h1 - sw1 - h2, both cables 2 m (10 ns at 5 ns/m) and Ethernet speeds of their own.
EthernetFabricPlan mixed_plan(bool fec) {
  const std::string f = fec ? "on" : "off";
  const Topology t = parse_topology(
      YAML::Load("nodes:\n  - {name: sw1, type: switch, ports: 2}\n  - {name: h1, type: hca}\n"
                 "  - {name: h2, type: hca}\ncables:\n"
                 "  - {from: h1/1, to: sw1/1, speed: 25GbE, length: 2m, fec: " + f + "}\n"
                 "  - {from: h2/1, to: sw1/2, speed: 100GbE, length: 2m, fec: " + f + "}\n"),
      "mixed.yaml");
  return ethernet_plan_from_topology(t, 1);
}

// The tail time at `to` of a RoCE v2 RC SEND Only of 64 bytes (126-byte frame, the switch decides on
// its first 38) that `from` starts at 0; switch latency 300 ns, RS-FEC decoder 100 ns. The fabric's
// own rate (200GbE) is no cable's: every link runs its cable's.
Time one_send(bool fec, bool cut_through, const std::string& from, const std::string& to) {
  init_time_resolution();
  RoceFabric f(mixed_plan(fec), EthernetRate{EthernetSpeed::k200G, true}, 999, 100 * kNs, cut_through, 300 * kNs);
  REQUIRE(f.host("h1").port().rate().speed == EthernetSpeed::k25G);
  REQUIRE(f.host("h2").port().rate().speed == EthernetSpeed::k100G);
  REQUIRE(f.host("h1").port().rate().fec == fec);
  TransportHeaders h;
  h.bth.opcode = kOpcodeRcBase + op::kSendOnly;
  h.bth.dest_qp = 0x12;
  const auto frame = build_roce_frame(f.addressing(from, to), h, 64, nullptr);
  REQUIRE(frame.size() == 126);
  REQUIRE(l3_decision_bytes(frame.data(), frame.size()) == 38);
  f.host(from).send_at(0, {frame});
  CalendarProcess::run_for(10 * kUs);
  const auto& rx = f.host(to).received();
  REQUIRE(rx.size() == 1);
  CHECK(rx[0].parsed.ok());
  CHECK(f.ledger.delivered_count() == 1);
  return rx[0].tail;
}

}  // namespace

// Each case one send from time 0 (simulated time runs on within a process: one per test case).
//
// Without FEC. 25GbE: 320 ps a byte, 10 ns = 31.25 -> 31 edges; 100GbE: 80 ps, 125 edges.
//   h1 -> h2 (onto a faster output: store-and-forward although cut-through is configured):
//     sw1 has the tail at 8 + 126 + 31 = 165 edges x 320 ps = 52.8 ns; eligible 352.8 ns = 100GbE
//     edge 4,410; h2 has the tail at 4,410 + 134 + 125 = 4,669 edges x 80 ps = 373.52 ns. (Cutting
//     through from the head, 8 + 38 + 31 = 77 edges = 24.64 ns, would have started on edge 4,058
//     and ended 88 bytes x 320 ps = 28.16 ns earlier, with the output overtaking its input.)
//   h2 -> h1 (onto a slower output: cut-through): sw1 has the head at 8 + 38 + 125 = 171 edges x
//     80 ps = 13.68 ns; eligible 313.68 ns, on the next 25GbE edge 981 (313.92 ns); h1 has the
//     tail at 981 + 134 + 31 = 1,146 edges x 320 ps = 366.72 ns.
//   Store-and-forward configured changes only the fast -> slow hop: sw1 has the tail at 134 + 125
//     = 259 edges = 20.72 ns, eligible 320.72 ns, 25GbE edge 1,003; h1's tail at 1,003 + 165 =
//     1,168 edges = 373.76 ns.
TEST_CASE("a SEND from 25GbE to 100GbE without FEC is stored whole at the cut-through switch in 373.52 ns",
          "[ethernet][roce][speeds]") {
  CHECK(one_send(false, true, "h1", "h2") == 373'520'000);
}

TEST_CASE("a SEND from 100GbE to 25GbE without FEC cuts through in 366.72 ns", "[ethernet][roce][speeds]") {
  CHECK(one_send(false, true, "h2", "h1") == 366'720'000);
}

TEST_CASE("a SEND from 25GbE to 100GbE without FEC through a store-and-forward switch in 373.52 ns",
          "[ethernet][roce][speeds]") {
  CHECK(one_send(false, false, "h1", "h2") == 373'520'000);
}

TEST_CASE("a SEND from 100GbE to 25GbE without FEC through a store-and-forward switch in 373.76 ns",
          "[ethernet][roce][speeds]") {
  CHECK(one_send(false, false, "h2", "h1") == 373'760'000);
}

// With RS(528,514) on both: a receiver has a byte at the end of the 640-byte block holding it
// (blocks from edge 0 of its link's clock), plus the decoder's 100 ns (312.5 -> 313 edges at 25GbE,
// 1,250 at 100GbE), plus the cable.
//   h1 -> h2: sw1 has the tail (edge 134) at 640 + 313 + 31 = 984 edges x 320 ps = 314.88 ns;
//     eligible 614.88 ns = 100GbE edge 7,686; h2's tail at 7,686 + 134 = 7,820 -> block end 8,320
//     + 1,250 + 125 = 9,695 edges x 80 ps = 775.6 ns.
//   h2 -> h1: sw1 has the head (edge 46) at 640 + 1,250 + 125 = 2,015 edges x 80 ps = 161.2 ns;
//     eligible 461.2 ns, 25GbE edge 1,441.25 -> 1,442; h1's tail at 1,442 + 134 = 1,576 -> block
//     end 1,920 + 313 + 31 = 2,264 edges x 320 ps = 724.48 ns.
TEST_CASE("a SEND from 25GbE to 100GbE with RS-FEC in 775.6 ns", "[ethernet][roce][speeds]") {
  CHECK(one_send(true, true, "h1", "h2") == 775'600'000);
}

TEST_CASE("a SEND from 100GbE to 25GbE with RS-FEC in 724.48 ns", "[ethernet][roce][speeds]") {
  CHECK(one_send(true, true, "h2", "h1") == 724'480'000);
}
