// What a scenario with `fabric: roce` does not support (yet), and bad `fabric:` / `roce:` values:
// each an error at its file, line and column (the workload entry, the section or the key), exit 2,
// before anything runs.
#include <catch2/catch.hpp>

#include <fstream>
#include <string>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

// A scenario whose first line is `topology: <topology>` and then `body`; runs it, expects exit 2
// and returns what ibfsim printed. `path` receives the scenario's path (messages start with it).
std::string rejected(const std::string& name, const std::string& body, std::string& path,
                     const std::string& topology = "two_switches_line.yaml", const std::string& flags = "") {
  const std::string dir = scratch_dir("roce_bad_" + name);
  path = dir + "/bad.yaml";
  std::ofstream(path) << "topology: " << IBFSIM_SOURCE_DIR << "/topologies/" << topology << "\n" << body;
  const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out " + flags);
  INFO(r.output);
  CHECK(r.exit_code == 2);
  return r.output;
}

bool has(const std::string& out, const std::string& want) {
  INFO(out);
  INFO("want: " << want);
  return out.find(want) != std::string::npos;
}

// Lines 2 to 4: the fabric and one WRITE flow (h1 to h2), which a RoCE run supports.
const std::string kRoceFlow = "fabric: roce\nworkload:\n  - {transport: rc, from: h1, to: h2, verb: write}\n";

}  // namespace

TEST_CASE("fabric: and roce: values are checked, each at its key", "[scenarios][input][roce]") {
  std::string p;
  std::string out = rejected("kind", "fabric: ethernet\n", p);
  CHECK(has(out, p + ":2:9: expected infiniband or roce, got 'ethernet'"));
  out = rejected("section", "roce: {speed: 40GbE}\n", p);
  CHECK(has(out, p + ":2:15: expected an Ethernet speed"));  // checked even with fabric: infiniband
  out = rejected("speed", kRoceFlow + "roce: {speed: 40GbE}\n", p);
  CHECK(has(out, p + ":5:15: expected an Ethernet speed: 25GbE, 50GbE, 100GbE, 200GbE or 400GbE"));
  out = rejected("fec", kRoceFlow + "roce: {speed: 200GbE, fec: false}\n", p);
  CHECK(has(out, p + ":5:28: expected fec: true at this speed"));
  out = rejected("dscp", kRoceFlow + "roce: {dscp: 64}\n", p);
  CHECK(has(out, p + ":5:14: expected"));
  out = rejected("unknown", kRoceFlow + "roce: {mtu: 4096}\n", p);
  CHECK(has(out, p + ":5:8:"));
}

TEST_CASE("roce.pfc, roce.ecn and roce.dcqcn values are checked, each at its key", "[scenarios][input][roce]") {
  std::string p;
  std::string out = rejected("pfc_prio", kRoceFlow + "roce: {pfc: {priorities: [3, 8]}}\n", p);
  CHECK(has(out, p + ":5:30: expected an integer in 0..7, got '8'"));
  out = rejected("pfc_twice", kRoceFlow + "roce: {pfc: {priorities: [3, 3]}}\n", p);
  CHECK(has(out, p + ":5:30: expected each priority once, got 3 again"));
  out = rejected("pfc_none", kRoceFlow + "roce: {pfc: {priorities: []}}\n", p);
  CHECK(has(out, p + ":5:26: expected a list of lossless priorities 0..7, e.g. [3]"));
  out = rejected("pfc_missing", kRoceFlow + "roce: {pfc: {xoff: 1000}}\n", p);
  CHECK(has(out, p + ":5:13: expected key 'priorities', got a map without it"));
  out = rejected("pfc_xon", kRoceFlow + "roce: {pfc: {priorities: [3], xoff: 1000, xon: 2000}}\n", p);
  CHECK(has(out, p + ":5:48: expected xon at most xoff (1000 bytes), got xon 2000 bytes"));
  out = rejected("pfc_headroom", kRoceFlow + "roce: {pfc: {priorities: [3], headroom: big}}\n", p);
  CHECK(has(out, p + ":5:41: expected auto or a number of bytes (1..4294967296), got 'big'"));
  out = rejected("pfc_quanta", kRoceFlow + "roce: {pfc: {priorities: [3], pause_quanta: 0}}\n", p);
  CHECK(has(out, p + ":5:45: expected"));
  out = rejected("pfc_unknown", kRoceFlow + "roce: {pfc: {priorities: [3], xof: 1}}\n", p);
  CHECK(has(out, p + ":5:31:"));
  out = rejected("ecn_k", kRoceFlow + "roce: {ecn: {kmin: 300000}}\n", p);
  CHECK(has(out, p + ":5:20: expected kmin below kmax (204800 bytes), got kmin 300000 bytes"));
  out = rejected("ecn_p", kRoceFlow + "roce: {ecn: {pmax: 1.5}}\n", p);
  CHECK(has(out, p + ":5:20: expected"));
  out = rejected("dcqcn_g", kRoceFlow + "roce: {dcqcn: {g: 0}}\n", p);
  CHECK(has(out, p + ":5:19: expected"));
  out = rejected("dcqcn_period", kRoceFlow + "roce: {dcqcn: {increase_period: 0us}}\n", p);
  CHECK(has(out, p + ":5:33: expected a duration above 0"));
  out = rejected("dcqcn_clamp", kRoceFlow + "roce: {dcqcn: {clamp_target_rate: maybe}}\n", p);
  CHECK(has(out, p + ":5:35: expected"));
  out = rejected("dcqcn_unknown", kRoceFlow + "roce: {dcqcn: {rpg_ai_rate: 5}}\n", p);
  CHECK(has(out, p + ":5:16:"));
}

TEST_CASE("fabric: roce refuses the workloads it does not run, each at its workload entry",
          "[scenarios][input][roce]") {
  std::string p;
  // IPoIB is InfiniBand's: a class over it is refused at its entry (before the `ipoib:` section).
  std::string out = rejected("ipoib_class",
                             kRoceFlow + "  - {name: c, pattern: uniform, hosts: [h2, h3], transport: ipoib_udp, "
                                         "load: 0.5}\nipoib: {subnet: 10.0.0.0/24}\n",
                             p, "two_switches.yaml");
  CHECK(has(out, p + ":5:5: expected a traffic class over ud_send, ud, uc or rc with fabric: roce (IPoIB is "
                     "InfiniBand's), got class 'c' with transport: ipoib_udp"));
  out = rejected("cm", "fabric: roce\nworkload:\n  - {name: w, transport: rc, from: h1, to: h2, verb: write, connect: cm}\n", p);
  CHECK(has(out, p + ":4:5: expected connect: static with fabric: roce"));
  out = rejected("srq", "fabric: roce\nworkload:\n  - {name: w, transport: rc, from: h1, to: h2, verb: send, srq: true}\n", p);
  CHECK(has(out, p + ":4:5: expected no srq: true with fabric: roce (not supported on RoCE yet), got verbs flow 'w'"));
}

TEST_CASE("fabric: roce refuses SHARP at its algorithm, and faults and routers, each at its section",
          "[scenarios][input][roce]") {
  std::string p;
  std::string out = rejected(
      "sharp", "fabric: roce\ncollectives:\n  - {name: s, op: allreduce, algorithm: sharp, min_bytes: 8, max_bytes: 8}\n", p);
  CHECK(has(out, p + ":4:41: expected ring or tree with fabric: roce (SHARP aggregates in InfiniBand switches), got "
                     "collective 's' with algorithm: sharp"));
  out = rejected("faults", kRoceFlow + "faults:\n  - {at: 1us, link: sw1/2, state: down}\n", p);
  CHECK(has(out, p + ":6:3: expected no `faults:` section with fabric: roce (link faults are not on Ethernet links yet)"));
  out = rejected("routers", "fabric: roce\nworkload:\n  - {transport: rc, from: h1, to: h3, verb: write}\n", p,
                 "two_subnets.yaml");
  CHECK(has(out, p + ":1:11: expected a topology without routers with fabric: roce (routers join InfiniBand subnets), "
                     "got router r1"));
  out = rejected("sm", kRoceFlow + "subnet_manager: {host: h1}\n", p);
  CHECK(has(out, p + ":5:17: expected no `subnet_manager:` section with fabric: roce (no subnet manager: addresses "
                     "and routes are static)"));
}

TEST_CASE("fabric: roce refuses link packets, packet logs and time series, each at its key",
          "[scenarios][input][roce]") {
  std::string p;
  std::string out = rejected("link_packets", kRoceFlow + "outputs: {pcap: true, pcap_link_packets: true}\n", p);
  CHECK(has(out, p + ":5:42: expected no link packets (Ethernet has none: outputs.pcap captures every frame) with "
                     "fabric: roce, got 'true'"));
  out = rejected("packet_log", kRoceFlow + "outputs: {packet_log: true}\n", p);
  CHECK(has(out, p + ":5:23: expected no packet log (not on RoCE yet) with fabric: roce, got 'true'"));
  out = rejected("time_series", kRoceFlow + "outputs: {time_series: {interval: 1us}}\n", p);
  CHECK(has(out, p + ":5:24: expected no time series (not on RoCE yet) with fabric: roce"));
}

// A topology whose switches say what they are (`kind:`) must agree with the scenario's `fabric:`:
// otherwise an error at the switch's `kind:` naming both, exit 2; a switch that says nothing fits
// either fabric, and one that agrees runs.
TEST_CASE("a topology switch's kind must agree with fabric:, located at its kind", "[scenarios][input][roce]") {
  const std::string dir = scratch_dir("roce_bad_switch_kind");
  const std::string topo = dir + "/t.yaml";
  std::ofstream(topo) << "nodes:\n"
                         "  - {name: sw1, type: switch, kind: ethernet}\n"
                         "  - {name: sw2, type: switch}\n"
                         "  - {name: h1, type: hca}\n"
                         "  - {name: h2, type: hca}\n"
                         "cables:\n"
                         "  - {from: h1/1, to: sw1/1}\n"
                         "  - {from: sw1/2, to: sw2/1}\n"
                         "  - {from: sw2/2, to: h2/1}\n";
  const std::string scenario = dir + "/s.yaml";
  std::ofstream(scenario) << "topology: " << topo << "\n" << kRoceFlow;
  const CommandResult ib = run_ibfsim("run " + scenario + " -o " + dir + "/ib --set fabric=infiniband");
  INFO(ib.output);
  CHECK(ib.exit_code == 2);
  CHECK(has(ib.output, topo + ":2:37: expected a switch of kind infiniband (the scenario's fabric is infiniband), "
                                    "got sw1 of kind ethernet"));
  const CommandResult roce = run_ibfsim("run " + scenario + " -o " + dir + "/roce");
  INFO(roce.output);
  CHECK(roce.exit_code == 0);
  std::string text = read_file(topo);
  text.replace(text.find("kind: ethernet"), 14, "kind: infiniband");
  std::ofstream(topo) << text;
  const CommandResult bad = run_ibfsim("run " + scenario + " -o " + dir + "/bad");
  INFO(bad.output);
  CHECK(bad.exit_code == 2);
  CHECK(has(bad.output, topo + ":2:37: expected a switch of kind ethernet (the scenario's fabric is roce), "
                                     "got sw1 of kind infiniband"));
}
