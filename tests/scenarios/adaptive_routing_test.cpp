// Adaptive routing end to end (docs/adaptive_routing.md): the SM programs the AR groups in band
// (its SMPs counted), and the switches' choices against static ftree on fat trees at offered load
// 1.0 with 2 KiB UD SENDs, with the figures each run gives (same scenario and seed, same bytes);
// RC over adaptive routing with go-back-N and with out-of-order tolerance. The 128-host figure of
// scenarios/adaptive_routing.yaml, over several permutations, is a [long] test.
#include <catch2/catch.hpp>

#include <fstream>
#include <nlohmann/json.hpp>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

std::string topology(const std::string& name) { return std::string(IBFSIM_SOURCE_DIR) + "/topologies/" + name; }

// Runs `scenario` (YAML) written into a fresh folder `name`, with `args`; returns results.json
// with its tables.
nlohmann::json run(const std::string& name, const std::string& scenario, const std::string& args = "") {
  const std::string dir = scratch_dir(name);
  std::ofstream(dir + "/s.yaml") << scenario;
  CommandResult r = run_ibfsim("run " + dir + "/s.yaml -o " + dir + "/out " + args);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return results_and_tables(dir + "/out");  // with ar_switches.csv as "adaptive_routing" "switches"
}

double accepted(const nlohmann::json& j) { return j["load"]["accepted"].get<double>(); }

const std::string kPermutation =
    "workload: {name: permutation, pattern: permutation, transport: ud_send, message_size: 2048, load: 1.0, "
    "arrival: bernoulli}\n";

}  // namespace

TEST_CASE("ar_ftree in band: the SM programs each leaf's group of 3 up-ports with 9 adaptive routing Sets, and the "
          "leaves route every packet to the other leaf by them",
          "[scenarios][adaptive_routing]") {
  const std::string dir = scratch_dir("ar_in_band_topology");
  std::ofstream(dir + "/t.yaml") << "defaults: {link: {speed: EDR, width: 4x}}\n"
                                    "generate: {kind: leaf_spine, leaves: 2, spines: 3, hosts_per_leaf: 2}\n";
  const nlohmann::json j = run("ar_in_band",
                               "topology: " + dir + "/t.yaml\n"
                               "subnet_manager: {routing: ar_ftree}\n"
                               "workload: {name: cross, pattern: shift, shift: 2, transport: ud_send, message_size: 2048, "
                               "load: 0.5, arrival: constant}\n"
                               "phases: {warmup: 5us, measure: 20us, drain: 20us}\n");
  // Per leaf: group table block 0 (group 1: ports 3-5), AR LFT block 0 (LIDs 0-31: the other
  // leaf's 2 hosts -> group 1) and AdaptiveRoutingInfo; per spine AdaptiveRoutingInfo only.
  CHECK(j["subnet_manager"]["sweeps"][0]["ar_smps"] == 9);
  CHECK(j["subnet_manager"]["routing"] == "ar_ftree");
  const auto& ar = j["adaptive_routing"];
  CHECK(ar["settings"]["routing"] == "ar_ftree");
  CHECK(ar["settings"]["sls"].size() == 16);
  CHECK(ar["settings"]["flowlet_gap_ns"] == 0);
  CHECK(ar["settings"]["credit_levels"] == 2);
  CHECK(ar["settings"]["flowlet_margin"] == 1);
  // Every host sends to the host 2 further on, all on the other leaf: every packet a leaf
  // forwards upwards chose among its 3 up-ports; the spines chose nothing.
  const std::uint64_t delivered = j["packets"]["delivered"];
  CHECK(ar["totals"]["adaptive"] == delivered);
  CHECK(ar["totals"]["fell_back"] == 0);
  for (const auto& s : ar["switches"])
    if (s["node"].get<std::string>().rfind("spine", 0) == 0) CHECK(s["adaptive"] == 0);
  CHECK(j["packets"]["dropped_total"] == 0);
}

TEST_CASE("a 16-host leaf-spine at offered load 1.0 with a permutation: adaptive routing with flowlets against "
          "static ftree, figure for figure",
          "[scenarios][adaptive_routing]") {
  // 4 leaves of 4 hosts, 4 spines. Static ftree sends every flow to the hosts at position i of
  // their leaf through spine i: in this permutation (seed 4) two flows of a leaf meet on one
  // up-link. Adaptive routing moves one of them.
  const std::string dir = scratch_dir("ar_16_topology");
  std::ofstream(dir + "/t.yaml") << "defaults: {link: {speed: EDR, width: 4x, length: 2m}, "
                                    "switch: {latency: 100ns, buffer_credits: 512}}\n"
                                    "generate: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 4}\n";
  const std::string base = "topology: " + dir + "/t.yaml\nseed: 4\n" + kPermutation +
                           "phases: {warmup: 100us, measure: 50us, drain: 20us}\n";
  const std::string adaptive = base + "subnet_manager: {routing: ar_ftree, adaptive_routing: {sls: [0], flowlet_gap: 320ns}}\n";
  const nlohmann::json st = run("ar_16_static", base + "subnet_manager: {routing: ftree}\n");
  const nlohmann::json ar = run("ar_16_adaptive", adaptive);
  CHECK(accepted(st) == Approx(0.862752).epsilon(1e-9));
  CHECK(accepted(ar) == Approx(0.9801792).epsilon(1e-9));
  // 4 leaves x (group block, AR LFT block, info) + 4 spines x info.
  CHECK(ar["subnet_manager"]["sweeps"][0]["ar_smps"] == 16);
  const auto& t = ar["adaptive_routing"]["totals"];
  CHECK(t["adaptive"] == 9764);
  CHECK(t["off_static"] == 8396);
  CHECK(t["flowlet_kept"] == 9693);
  CHECK(t["fell_back"] == 0);
  // The same scenario and seed give the same figures.
  const nlohmann::json again = run("ar_16_adaptive_again", adaptive);
  for (const char* k : {"load", "packets", "adaptive_routing", "ports"}) CHECK(again[k] == ar[k]);
}

TEST_CASE("RC over adaptive routing: go-back-N pays for every packet that overtakes another, the out-of-order "
          "tolerant HCA places them and sends nothing twice",
          "[scenarios][adaptive_routing][rc_out_of_order]") {
  // Per-packet AR on 4 leaves x 4 spines: each RC connection's packets spread over the spines,
  // and a uniform UD background (60%) makes the spines' queues, and so the paths, differ.
  const std::string dir = scratch_dir("ar_rc_topology");
  std::ofstream(dir + "/t.yaml") << "defaults: {link: {speed: EDR, width: 4x, length: 2m}, "
                                    "switch: {latency: 100ns, buffer_credits: 512}}\n"
                                    "generate: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 4}\n";
  const std::string scenario =
      "topology: " + dir + "/t.yaml\n"
      "subnet_manager: {routing: ar_ftree}\n"
      "workload:\n"
      "  - {name: w1, transport: rc, verb: write, from: h1, to: h5, message_size: 65536, iterations: 200, tx_depth: 16}\n"
      "  - {name: w2, transport: rc, verb: write, from: h2, to: h9, message_size: 65536, iterations: 200, tx_depth: 16}\n"
      "  - {name: w3, transport: rc, verb: write, from: h6, to: h13, message_size: 65536, iterations: 200, tx_depth: 16}\n"
      "  - {name: r4, transport: rc, verb: read, from: h10, to: h3, message_size: 65536, iterations: 200, tx_depth: 16}\n"
      "  - {name: background, pattern: uniform, transport: ud_send, message_size: 2048, load: 0.6, arrival: poisson}\n"
      "phases: {limit: 2ms}\n"
      "outputs: {data_check: true}\n";
  const nlohmann::json gbn = run("ar_rc_go_back_n", scenario);
  const nlohmann::json ooo = run("ar_rc_out_of_order", scenario, "--set hca_model.rc_out_of_order=true");
  auto counter = [](const nlohmann::json& f, const char* side, const char* k) { return f[side]["counters"][k].get<std::uint64_t>(); };
  // Out-of-order tolerant: every message done in 1.53 ms, data checked, no NAK, nothing sent
  // twice: 3,400 packets per flow (200 x 16 + 200 ACKs or READ requests), the WRITEs' packets
  // that came early placed (ooo_placed) or held, the READ's responses placed as they came.
  CHECK(ooo["phases"]["end_ns"].get<double>() == Approx(1529186.08).epsilon(1e-12));
  const std::uint64_t placed[] = {2009, 1072, 1493, 0};
  const std::uint64_t held[] = {364, 507, 385, 9};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& f = ooo["flows"][i];
    INFO(f["name"]);
    CHECK(f["finished"] == true);
    CHECK(f["messages_completed"] == 200);
    CHECK(f["data_check"]["passed"] == true);
    CHECK(f["seq_naks"] == 0);
    CHECK(f["retransmitted_packets"] == 0);
    CHECK(counter(f, "to_side", "ooo_placed") == placed[i]);
    CHECK(counter(f, "to_side", "ooo_held") == held[i]);
    CHECK(counter(f, "from_side", "implied_naks") == 0);
  }
  CHECK(counter(ooo["flows"][3], "from_side", "ooo_read_responses") == 1565);
  // Go-back-N: the same traffic, every early packet a sequence error. w1 and w2 finish after 50
  // and 30 NAKs and 362 and 208 packets sent again; w3 is still going back when the run ends
  // (42 of its messages done), and the READ r4 went back 3 times (implied NAKs) and then waits for
  // its local ACK timeout (67 ms): nothing completed.
  const std::uint64_t naks[] = {50, 30, 387, 0};
  const std::uint64_t again[] = {362, 208, 5094, 48};
  const std::uint64_t done[] = {200, 200, 42, 0};
  for (std::size_t i = 0; i < 4; ++i) {
    const auto& f = gbn["flows"][i];
    INFO(f["name"]);
    CHECK(f["seq_naks"] == naks[i]);
    CHECK(f["retransmitted_packets"] == again[i]);
    CHECK(f["messages_completed"] == done[i]);
    CHECK(counter(f, "to_side", "ooo_placed") == 0);
  }
  CHECK(counter(gbn["flows"][3], "from_side", "implied_naks") == 3);
  CHECK(gbn["flows"][2]["finished"] == false);
  CHECK(gbn["flows"][3]["finished"] == false);
}

TEST_CASE("scenarios/adaptive_routing.yaml: 128 hosts, 2 KiB UD at offered load 1.0, five permutations and three "
          "uniform runs, adaptive routing against static ftree",
          "[scenarios][adaptive_routing][long]") {
  const std::string scenario = std::string(IBFSIM_SOURCE_DIR) + "/scenarios/adaptive_routing.yaml";
  auto load = [&](const std::string& name, const std::string& args) {
    const std::string dir = scratch_dir(name);
    CommandResult r = run_ibfsim("run " + scenario + " -o " + dir + " " + args);
    INFO(r.output);
    REQUIRE(r.exit_code == 0);
    return accepted(nlohmann::json::parse(read_file(dir + "/results.json")));
  };
  // Measured with this scenario (docs/adaptive_routing.md, "Figures").
  const double ar_perm[] = {0.8902608, 0.8669364, 0.9218088, 0.9488028, 0.8697348};
  const double st_perm[] = {0.678876, 0.6556572, 0.7018044, 0.7243632, 0.7016724};
  double ar_sum = 0, st_sum = 0;
  for (int s = 1; s <= 5; ++s) {
    const std::string seed = " --seed " + std::to_string(s);
    const double ar = load("ar_perm_" + std::to_string(s), seed);
    const double st = load("st_perm_" + std::to_string(s), seed + " --set subnet_manager.routing=ftree");
    CHECK(ar == Approx(ar_perm[s - 1]).epsilon(1e-9));
    CHECK(st == Approx(st_perm[s - 1]).epsilon(1e-9));
    CHECK(ar > st + 0.1);
    CHECK(ar >= 0.85);  // the mark, on every permutation
    ar_sum += ar;
    st_sum += st;
  }
  CHECK(ar_sum / 5 >= 0.85);
  CHECK(st_sum / 5 < 0.75);
  // Uniform: head-of-line blocking in the input FIFOs limits both near 0.59.
  const double ar_uni[] = {0.5736192, 0.5753088, 0.5784504};
  const double st_uni[] = {0.5912808, 0.5943564, 0.58938};
  for (int s = 1; s <= 3; ++s) {
    const std::string args = " --seed " + std::to_string(s) + " --set workload.pattern=uniform";
    CHECK(load("ar_uni_" + std::to_string(s), args) == Approx(ar_uni[s - 1]).epsilon(1e-9));
    CHECK(load("st_uni_" + std::to_string(s), args + " --set subnet_manager.routing=ftree") ==
          Approx(st_uni[s - 1]).epsilon(1e-9));
  }
}

TEST_CASE("adaptive routing's fast recovery: a spine that loses its cable to a leaf tells the other leaves, which "
          "stop sending it that leaf's traffic 414 ns after the fault, with no subnet manager sweep",
          "[scenarios][adaptive_routing][faults]") {
  const std::string dir = scratch_dir("ar_fr_topology");
  std::ofstream(dir + "/t.yaml") << "defaults: {link: {speed: EDR, width: 4x, length: 2m}, "
                                    "switch: {latency: 100ns, buffer_credits: 512}}\n"
                                    "generate: {kind: leaf_spine, leaves: 4, spines: 4, hosts_per_leaf: 4}\n";
  // Every host sends to the host 4 further on (the next leaf), per-packet AR; spine1/1, the cable
  // between spine1 and leaf1, fails 20 us into the traffic. The SM's sweep (trap 128) does not
  // finish within the run: what happens is the switches' own doing.
  const std::string scenario =
      "topology: " + dir + "/t.yaml\n"
      "subnet_manager: {routing: ar_ftree}\n"
      "workload: {name: cross, pattern: shift, shift: 4, transport: ud_send, message_size: 2048, load: 0.5, "
      "arrival: constant}\n"
      "phases: {warmup: 5us, measure: 60us, drain: 50us}\n"
      "faults: [{at: 20us, link: spine1/1, state: down}]\n";
  const nlohmann::json on = run("ar_fr_on", scenario);
  const nlohmann::json off = run("ar_fr_off", scenario, "--set subnet_manager.adaptive_routing.fast_recovery=false");
  // With fast recovery: spine1 can reach leaf1's 4 hosts no more and tells leaf2-4 (3
  // notifications), 200 ns after the fault; leaf1 lost only spine1's own LID (no other way to a
  // switch LID) and tells spines 2-4, which route nothing adaptively and change nothing. Each of
  // leaf2-4 excludes spine1 for leaf1's 4 hosts 200 ns after the notification is in: 413.76 ns after
  // the fault (400 ns of the two switches' processing, 13.76 ns on the wire). Only the 2 packets on
  // the cable when it failed are lost.
  const auto& f = on["faults"][0];
  CHECK(f["resweep_done_ns"].is_null());
  CHECK(f["ar_traffic_moved_ns"].get<double>() == Approx(413.76).epsilon(1e-12));
  CHECK(on["adaptive_routing"]["totals"]["notifications_sent"] == 6);
  for (const auto& s : on["adaptive_routing"]["switches"]) {
    const std::string node = s["node"];
    INFO(node);
    const bool upstream_leaf = node == "leaf2" || node == "leaf3" || node == "leaf4";
    CHECK(s["lids_excluded"] == (upstream_leaf ? 4 : 0));
    CHECK(s["notifications_sent"] == (node == "leaf1" || node == "spine1" ? 3 : 0));
    CHECK(s["notifications_received"] == (node == "leaf1" || node == "spine1" ? 0 : 1));
  }
  CHECK(on["packets"]["dropped"]["link_down"] == 2);
  CHECK(on["packets"]["delivered"] == 3073);
  // Without: leaf2-4 go on choosing spine1 for leaf1's hosts (its cable to them is down, but it is
  // not theirs), and spine1 discards every such packet (R20) until the sweep.
  CHECK(off["adaptive_routing"]["totals"]["notifications_sent"] == 0);
  CHECK(off["faults"][0].contains("ar_traffic_moved_ns") == false);
  CHECK(off["packets"]["dropped"]["link_down"] == 134);
  CHECK(off["packets"]["delivered"] == 2941);
}

TEST_CASE("adaptive routing's congestion notifications: two flows of different leaves meet on a spine's link to "
          "their destination leaf, the spine tells one leaf, and that flow's next flowlet moves to the other spine",
          "[scenarios][adaptive_routing]") {
  // 3 leaves of 2 hosts, 2 spines (leaf ports 3 and 4). h1 (leaf1) sends to h5 and h3 (leaf2) to
  // h6 (both on leaf3) at line rate. Both leaves' first choice is port 3 (round robin from none):
  // spine1, whose one link to leaf3 then carries both. Without notifications neither leaf sees it.
  const std::string dir = scratch_dir("ar_arn_topology");
  std::ofstream(dir + "/t.yaml") << "defaults: {link: {speed: EDR, width: 4x, length: 2m}, "
                                    "switch: {latency: 100ns, buffer_credits: 512}}\n"
                                    "generate: {kind: leaf_spine, leaves: 3, spines: 2, hosts_per_leaf: 2}\n";
  const std::string scenario =
      "topology: " + dir + "/t.yaml\n"
      "subnet_manager: {routing: ar_ftree, adaptive_routing: {sls: [0], flowlet_gap: 320ns, "
      "congestion_threshold: 66, congestion_hold: 20us}}\n"
      "workload: {name: two, pattern: shift, hosts: [h1, h5, h3, h6], sources: [h1, h3], shift: 1, "
      "transport: ud_send, message_size: 2048, load: 1.0, arrival: constant}\n"
      "phases: {warmup: 5us, measure: 20us, drain: 10us}\n";
  const nlohmann::json on = run("ar_arn_on", scenario);
  const nlohmann::json off = run("ar_arn_off", scenario, "--set subnet_manager.adaptive_routing.congestion_threshold=0");
  CHECK(on["adaptive_routing"]["settings"]["congestion_threshold_blocks"] == 66);
  CHECK(on["adaptive_routing"]["settings"]["congestion_hold_ns"] == 20000);
  // The traffic starts at 167 us. spine1 sees leaf2's head request its port to leaf3 while
  // leaf1's waits for it, and tells leaf2 (the one notification it sends within the 20 us hold);
  // leaf2 ranks spine1 last for h6 from 167.46 us, and its flow keeps its port for the rest of its
  // flowlet: it moves, to spine2, at 172295.68 ns. leaf1's flow had moved there by credits
  // meanwhile, so spine2 tells leaf1 in turn, which moves back to spine1 at 177830.4 ns. leaf3's
  // notification to spine2 (its link to a host requested from both spines' inputs while that
  // host's flow changed spines) changes nothing: a spine has no group. The flows are apart for good only after both moved, and
  // the run does less well than without (credits alone separate them sooner here).
  const auto& t = on["adaptive_routing"]["totals"];
  CHECK(t["congestion_notifications_sent"] == 3);
  CHECK(t["notified_moves"] == 2);
  for (const auto& s : on["adaptive_routing"]["switches"]) {
    const std::string node = s["node"];
    INFO(node);
    CHECK(s["congestion_notifications_sent"] == (node == "spine1" || node == "spine2" || node == "leaf3" ? 1 : 0));
    CHECK(s["congestion_notifications_received"] == (node == "leaf1" || node == "leaf2" || node == "spine2" ? 1 : 0));
    CHECK(s["ports_penalized"] == (node == "leaf1" || node == "leaf2" ? 1 : 0));
    CHECK(s["notified_moves"] == (node == "leaf1" || node == "leaf2" ? 1 : 0));
  }
  auto move_ns = [&](const char* leaf) {
    for (const auto& s : on["adaptive_routing"]["switches"])
      if (s["node"] == leaf) return s["first_notified_move_ns"].get<double>();
    return -1.0;
  };
  CHECK(move_ns("leaf2") == Approx(172295.68).epsilon(1e-12));
  CHECK(move_ns("leaf1") == Approx(177830.4).epsilon(1e-12));
  CHECK(accepted(on) == Approx(0.88704).epsilon(1e-9));
  CHECK(accepted(off) == Approx(0.925056).epsilon(1e-9));
  CHECK(off["adaptive_routing"]["totals"]["congestion_notifications_sent"] == 0);
}
