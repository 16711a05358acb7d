// Zero-load latency with FEC (sim/phy/fec.h), computed by hand to the femtosecond: one UD packet
// h1 -> sw1 -> h2. On a link with FEC the far end has a packet's head (a switch routes on it) and
// its tail only at the end of the codeword holding their last edge, plus the decoder: codewords
// are 80 edges (RS(528,514) and RS(544,514)) back to back from the edge the link came up on, and
// the decoder latency is rounded up to whole edges. Everything else is the timing of
// zero_load_latency_test.cpp: a packet of B bytes takes ceil((B + 2) / bytes per edge) edges,
// the cable delay (5 ns/m) is rounded up to whole edges, the LRH is in after ceil(9 / bytes per
// edge) edges, and the switch starts at the first output edge >= head + latency whose end is >=
// tail + latency (cut-through).
//
// Link training (link_training.h) takes 4,352 SDR edges (17,408 ns) and then 272 edges of the final
// speed, each phase from the first edge of its clock: links come up on a known edge, which fixes
// where the codewords fall. The packet is posted at 20 us, long after the initial flow-control
// packets and before the first SKIP (4,608 edges after link up).
#include <catch2/catch.hpp>

#include <fstream>

#include <nlohmann/json.hpp>

#include "tests/support/fabric_harness.h"
#include "tests/support/fire_at.h"
#include "tests/support/run_command.h"

using namespace ibfsim;
using namespace ibfsim::test;

namespace {

// Sends one UD packet of `payload` bytes h1 -> sw1 -> h2, posted at 20 us, and returns what h2
// delivered. `link1`/`link2`: the cables' YAML settings after `from:, to:`.
Delivery run_one(const std::string& link1, const std::string& link2, std::uint32_t payload, Time decoder) {
  FabricOptions options;
  options.phy.fec_decoder_latency = decoder;
  Fabric& f = build_fabric(
      "defaults: {link: {width: 4x, length: 2m}, switch: {latency: 100ns}}\n"
      "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, {name: h2, type: hca}]\n"
      "cables: [{from: h1/1, to: sw1/1, " + link1 + "}, {from: h2/1, to: sw1/2, " + link2 + "}]\n",
      options);
  static Poster poster;
  static Recorder rec;
  aim(poster, *f.hca(1), *f.hca(2), payload);
  f.hca(2)->set_delivery_observer(&rec);
  fire_at(*f.hca(1), 20 * kUs, &poster);
  run_for(f, 40 * kUs);
  REQUIRE(rec.delivered.size() == 1);
  return rec.delivered[0];
}

}  // namespace

TEST_CASE("zero-load latency over a 4x HDR hop and a 4x NDR hop with RS(544,514), exact to the femtosecond",
          "[scenarios][timing][fec]") {
  // HDR: 1.28 ns per edge (64 data bits per lane at 50 Gb/s), NDR 0.64 ns; 32 bytes per edge at 4x.
  // Packet: LRH 8 + BTH 12 + DETH 8 + payload 2048 + ICRC 4 + VCRC 2 = 2082 bytes + 2 slots
  //   -> 66 edges on both links; LRH in after 1 edge.
  // Cables 2 m = 10 ns: HDR ceil(7.8125) = 8 edges, NDR ceil(15.625) = 16 edges.
  // Decoder 100 ns: HDR ceil(78.125) = 79 edges, NDR ceil(156.25) = 157 edges.
  // Links up: h1-sw1 at HDR edge 17,408 / 1.28 + 272 = 13,872 (17,756.16 ns); sw1-h2 at NDR edge
  //   17,408 / 0.64 + 272 = 27,472 (17,582.08 ns).
  // h1 sends at 20 us = HDR edge 15,625, i.e. 1,753 edges after link up.
  //   Head: its LRH ends at 1,754 -> codeword ends at 1,760 -> + 79 = 1,839 -> edge 15,711, + 8 =
  //   15,719 at the switch = 20,120.32 ns. Tail: ends at 1,819 -> codeword ends at 1,840 -> + 79 =
  //   1,919 -> 15,791 + 8 = 15,799 = 20,222.72 ns.
  // Switch, NDR output: first edge >= 20,220.32 ns is 31,595; its end must be >= 20,322.72 ns
  //   (edge 31,755) -> start >= 31,689. Starts at edge 31,689 (20,280.96 ns), 4,217 edges after link
  //   up; its tail ends at 4,283 -> codeword ends at 4,320 -> + 157 = 4,477 -> edge 31,949, + 16 =
  //   31,965 = 20,457.6 ns at h2.
  // Without FEC the same packet would arrive at 20,205.44 ns (the switch has the head at HDR edge
  // 15,634 and the tail at 15,699, starts at NDR edge 31,489, and h2 has the tail 16 + 66 edges
  // later): FEC costs 252.16 ns over the two hops here.
  Delivery r = run_one("speed: HDR", "speed: NDR", 2048, 100 * kNs);
  CHECK(r.injected == 20'000'000'000);
  CHECK(r.delivered == 20'457'600'000);
}

TEST_CASE("zero-load latency over two 4x EDR hops with RS(528,514) on, exact to the femtosecond",
          "[scenarios][timing][fec]") {
  // EDR: 2.56 ns per edge, 32 bytes per edge; the packet is 66 edges, the LRH in after 1 edge.
  // Cables 2 m: ceil(3.90625) = 4 edges. Decoder 100 ns: ceil(39.0625) = 40 edges.
  // Links up at EDR edge 17,408 / 2.56 + 272 = 7,072 (18,104.32 ns).
  // h1 sends at the first edge >= 20 us: 7,813 (20,001.28 ns), 741 edges after link up.
  //   Head: ends at 742 -> codeword ends at 800 -> + 40 = 840 -> edge 7,912, + 4 = 7,916 =
  //   20,264.96 ns. Tail: ends at 807 -> codeword ends at 880 -> + 40 = 920 -> 7,992 + 4 = 7,996 =
  //   20,469.76 ns.
  // Switch: first edge >= 20,364.96 ns is 7,956; end >= 20,569.76 ns (edge 8,036) -> start >= 7,970.
  //   Starts at 7,970 (898 after link up); tail ends at 964 -> codeword ends at 1,040 -> + 40 =
  //   1,080 -> edge 8,152, + 4 = 8,156 = 20,879.36 ns at h2.
  Delivery r = run_one("speed: EDR, fec: on", "speed: EDR, fec: on", 2048, 100 * kNs);
  CHECK(r.injected == 20'001'280'000);
  CHECK(r.delivered == 20'879'360'000);
}

TEST_CASE("zero-load latency over 4x EDR hops with FEC off (EDR's default) is unchanged, decoder latency ignored",
          "[scenarios][timing][fec]") {
  // zero_load_latency_test's EDR timeline from edge 7,813: the switch has the head at 7,813 + 4 + 1
  // = 7,818 and the tail at 7,883; it starts at the first edge >= 7,818 x 2.56 + 100 ns = 7,857.06
  // -> 7,858 (its end, 7,924, is past 7,883 + 39.06); tail at h2 at 7,858 + 4 + 66 = 7,928 =
  // 20,295.68 ns.
  Delivery r = run_one("speed: EDR, fec: off", "speed: EDR", 2048, 100 * kNs);
  CHECK(r.injected == 20'001'280'000);
  CHECK(r.delivered == 20'295'680'000);
}

TEST_CASE("a run names the FEC each link runs in results.json, and bit-exact mode keeps FEC's timing",
          "[scenarios][fec]") {
  // h1 - sw1 at 4x HDR (RS(544,514), always), h2 - sw1 at 4x EDR with fec: on (RS(528,514)), h3 - sw1
  // at 4x EDR without (no key in results.json, as in runs without FEC).
  const std::string dir = scratch_dir("fec_results");
  std::ofstream(dir + "/t.yaml") << "nodes: [{name: sw1, type: switch, ports: 4}, {name: h1, type: hca}, "
                                    "{name: h2, type: hca}, {name: h3, type: hca}]\n"
                                    "cables:\n  - {from: h1/1, to: sw1/1, speed: HDR}\n"
                                    "  - {from: h2/1, to: sw1/2, fec: on}\n  - {from: h3/1, to: sw1/3}\n";
  std::ofstream(dir + "/s.yaml") << "topology: " << dir << "/t.yaml\nworkload: {message_size: 300, load: 0.4}\n"
                                    "phases: {warmup: 0us, measure: 10us, drain: 20us}\n"
                                    "phy: {fec_decoder_latency: 50ns}\noutputs: {pcap: true}\n";
  REQUIRE(run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/timing").exit_code == 0);
  const CommandResult exact = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/exact --set phy.mode=bit_exact");
  INFO(exact.output);
  REQUIRE(exact.exit_code == 0);
  const auto j = results_and_tables(dir + "/timing");
  REQUIRE(j["links"].size() == 3);
  CHECK(j["links"][0]["fec"] == "RS(544,514)");
  CHECK(j["links"][1]["fec"] == "RS(528,514)");
  CHECK_FALSE(j["links"][2].contains("fec"));
  // Every frame on every link at the same time in both modes.
  const std::string t = read_file(dir + "/timing/trace_links.csv");
  REQUIRE(t.size() > 1000);
  CHECK(t == read_file(dir + "/exact/trace_links.csv"));
  CHECK(j["latency"] == results_and_tables(dir + "/exact")["latency"]);
}

TEST_CASE("phy.fec_decoder_latency takes a duration", "[scenarios][fec][input]") {
  const std::string dir = scratch_dir("fec_bad");
  const std::string path = dir + "/bad.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR
                      << "/topologies/quickstart.yaml\nphy:\n  fec_decoder_latency: 80\n";
  const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
  CHECK(r.exit_code == 2);
  CHECK(r.output.find(path + ":3:24: expected a duration with a unit (fs, ps, ns, us, ms, s), e.g. 100ns, got '80'") !=
        std::string::npos);
}
