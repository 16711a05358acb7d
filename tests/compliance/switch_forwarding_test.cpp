// Switch forwarding and discards: R15, R16 (ch7/18), R17, R18 (ch18).
#include <catch2/catch.hpp>

#include "tests/support/fabric_harness.h"
#include "tests/support/run_command.h"
#include "tests/support/fire_at.h"

using namespace ibfsim;
using namespace ibfsim::test;

TEST_CASE("R15 (ch18): unicast goes by LFT[DLID], a DLID above LinearFDBTop is discarded and counted",
          "[compliance][R15][ch18]") {
  Fabric& f = build_fabric(
      "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}]\n"
      "cables: [{from: h1/1, to: sw1/1}, {from: h2/1, to: sw1/2}]\n");
  Hca& h1 = *f.hca(1);
  Hca& h2 = *f.hca(2);
  Switch& sw = *f.switch_at(0);
  REQUIRE(sw.config().lft.top() == 3);  // h1 = 1, h2 = 2, sw1 = 3
  Poster good, bad;
  for (Poster* p : {&good, &bad}) {
    p->hca = &h1;
    p->src = p == &good ? h1.create_ud_qp(0x42) : good.src;
    p->bytes = 256;
    p->count = 3;
  }
  good.dst = bad.dst = h2.create_ud_qp(0x42);
  good.dlid = h2.lid();
  bad.dlid = 4;  // above LinearFDBTop
  Recorder rec;
  h2.set_delivery_observer(&rec);
  fire_at(h1, 1 * kUs, &good);
  fire_at(h1, 2 * kUs, &bad);
  run_for(f, 20 * kUs);
  CHECK(rec.delivered.size() == 3);
  CHECK(sw.port_discards(1, DropReason::kUnknownDlid) == 3);  // counted at the input port
  CHECK(f.ledger().dropped_count(DropReason::kUnknownDlid) == 3);
  CHECK(sw.port(2).stats().tx_packets == 3);
}

TEST_CASE("R16 (ch7): a switch drops packets whose SL maps to VL15 or to a VL its output does not operate",
          "[compliance][R16][ch7]") {
  // HCAs map SL s -> VL s; the switch maps SL 2 -> VL15 and SL 3 -> VL 9 (its ports run 8 VLs).
  auto r = run_scenario_text("r16",
                             "quickstart.yaml\n"
                             "workload:\n"
                             "  - {name: ok, sources: [h1], destination: h2, sl: 1, load: 0.3}\n"
                             "  - {name: vl15, sources: [h3], destination: h4, sl: 2, load: 0.3}\n"
                             "  - {name: vl9, sources: [h5], destination: h6, sl: 3, load: 0.3}\n"
                             "link:\n"
                             "  sl_to_vl: [0, 1, 2, 3, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]\n"
                             "  switch_sl_to_vl: [0, 1, 15, 9, 4, 5, 6, 7, 0, 1, 2, 3, 4, 5, 6, 7]\n"
                             "phases: {warmup: 0us, measure: 20us, drain: 10us}\n");
  // The SM programs both tables (QoS) before traffic starts; its SMPs are not counted (data_tx).
  const std::uint64_t sent_vl15 = data_tx(r, "h3", 1), sent_vl9 = data_tx(r, "h5", 1);
  REQUIRE(sent_vl15 > 0);
  REQUIRE(sent_vl9 > 0);
  CHECK(port_of(r, "sw1", 3)["discards"]["sl_to_vl_drop"] == sent_vl15);
  CHECK(port_of(r, "sw1", 5)["discards"]["sl_to_vl_drop"] == sent_vl9);
  CHECK(r["flows"][1]["latency"]["count"] == 0);
  CHECK(r["flows"][2]["latency"]["count"] == 0);
  CHECK(r["flows"][0]["latency"]["count"].get<std::uint64_t>() > 0);
  CHECK(r["packets"]["dropped_total"] == sent_vl15 + sent_vl9);
}

namespace {
// h2 floods h1 on SL1/VL1, which the switch output to h1 serves at high priority without limit;
// h3's packets on SL0/VL0 for h1 therefore wait at that output for as long as the flood lasts
// (20 us of traffic), then drain.
std::string starved_low_vl(const std::string& link) {
  return "quickstart.yaml\n"
         "workload:\n"
         "  - {name: high, sources: [h2], destination: h1, sl: 1, message_size: 2048, load: 1.0, arrival: constant}\n"
         "  - {name: low, sources: [h3], destination: h1, sl: 0, message_size: 2048, load: 0.2, arrival: constant}\n"
         "phases: {warmup: 0us, measure: 20us, drain: 100us}\n"
         "link: {vl_arbitration: {high: [[1, 255]], low: [[0, 255]], high_limit: 255}, " + link + "}\n";
}
}  // namespace

TEST_CASE("R17 (ch18): a packet at the head of an output queue longer than 4.096 us x 2^HOQLife is discarded",
          "[compliance][R17][ch18]") {
  // HOQLife 0 = 4.096 us: the starved low-priority heads time out one after another.
  auto r = run_scenario_text("r17", starved_low_vl("hoq_life: 0"));
  const std::uint64_t hoq = port_of(r, "sw1", 1)["discards"].value("hoq_lifetime", 0);
  CHECK(hoq > 0);
  CHECK(r["packets"]["dropped"]["hoq_lifetime"] == hoq);  // counted at the output port
  // No head is dropped before its 4.096 us: at most one per 4.096 us of the ~20 us starvation.
  CHECK(hoq <= 20 / 4.096 + 1);
  CHECK(r["flows"][0]["latency"]["count"].get<std::uint64_t>() > 0);
  CHECK(r["packets"]["dropped_total"] == hoq);
  // HOQLife 20 and above is infinite: the same starvation drops nothing, the low flow just waits.
  auto inf = run_scenario_text("r17_inf", starved_low_vl("hoq_life: 20"));
  CHECK(inf["packets"]["dropped_total"] == 0);
  CHECK(inf["flows"][1]["latency"]["max_ns"].get<double>() > 15000.0);
}

TEST_CASE("R18 (ch18): a packet that stayed in a switch longer than 4.096 us x 2^LifeTimeValue is discarded",
          "[compliance][R18][ch18]") {
  auto r = run_scenario_text("r18", starved_low_vl("switch_lifetime: 0"));
  const std::uint64_t aged = r["packets"]["dropped"]["switch_lifetime"];
  CHECK(aged > 0);
  CHECK(r["packets"]["dropped_total"] == aged);
  // Every low-priority packet delivered spent less than 4.096 us in the switch: its network
  // latency (injection to delivery) stays below that plus one hop's serialization and cables.
  CHECK(r["flows"][1]["network_latency"]["max_ns"].get<double>() < 4096.0 + 2 * 169 + 2 * 11);
  auto inf = run_scenario_text("r18_inf", starved_low_vl("switch_lifetime: 20"));
  CHECK(inf["packets"]["dropped_total"] == 0);
}

TEST_CASE("R17 and R18 (ch18): lifetimes are 4.096 us x 2^value, and values of 20 and above are infinite",
          "[compliance][R17][R18][ch18]") {
  CHECK(lifetime_from_code(0) == 4'096 * kNs);
  CHECK(lifetime_from_code(1) == 8'192 * kNs);
  CHECK(lifetime_from_code(18) == 4'096ull * kNs * 262'144);  // OpenSM's default, ~1.07 s
  CHECK(lifetime_from_code(19) == 4'096ull * kNs * 524'288);
  CHECK(lifetime_from_code(20) == kTimeNever);
  CHECK(lifetime_from_code(31) == kTimeNever);
}

TEST_CASE("R10 (ch7): a switch discards a packet whose payload exceeds the output MTU, and counts it",
          "[compliance][R10][ch7]") {
  auto r = run_scenario_text("r10",
                             "quickstart.yaml\n"
                             "workload:\n"
                             "  - {name: big, sources: [h1], destination: h2, message_size: 2048, load: 0.3}\n"
                             "  - {name: small, sources: [h3], destination: h4, message_size: 1024, load: 0.3}\n"
                             "link: {mtu: 1024}\n"
                             "phases: {warmup: 0us, measure: 20us, drain: 10us}\n");
  // The SM programs NeighborMTU 1024 on every port; its SMPs are not counted (data_tx).
  const std::uint64_t big = data_tx(r, "h1", 1);
  REQUIRE(big > 0);
  CHECK(port_of(r, "sw1", 1)["discards"]["mtu_exceeded"] == big);
  CHECK(r["flows"][0]["latency"]["count"] == 0);
  CHECK(r["flows"][1]["latency"]["count"] == data_tx(r, "h3", 1));
}
