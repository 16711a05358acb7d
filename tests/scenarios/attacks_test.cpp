// The attacks of scenarios/security_*.yaml (docs/scenario.md, "Attacks"): each is refused by the
// check the IBA puts in its way, every refusal counted where it happens, and nothing is lost and
// nothing changed: the victim flows complete every message, their data checks pass (the target
// region holds exactly what the flow wrote), and the only packets dropped are the attacker's.
// Where a protection is optional (random memory keys, M_Keys), the same attack without it is run
// too, and succeeds: the checks here can fail.
#include <catch2/catch.hpp>

#include <nlohmann/json.hpp>

#include <fstream>

#include "tests/support/run_command.h"

using namespace ibfsim::test;

namespace {

nlohmann::json run_security(const std::string& name, const std::string& extra = "") {
  const std::string dir = scratch_dir("attacks_" + name + (extra.empty() ? "" : "_variant"));
  CommandResult r = run_ibfsim("run " + std::string(IBFSIM_SOURCE_DIR) + "/scenarios/security_" + name + ".yaml -o " +
                               dir + " " + extra);
  INFO(r.output);
  REQUIRE(r.exit_code == 0);
  return results_and_tables(dir);
}

const nlohmann::json& named(const nlohmann::json& list, const std::string& name) {
  for (const auto& e : list)
    if (e["name"] == name) return e;
  throw std::runtime_error("nothing named " + name);
}

const nlohmann::json& named_switch(const nlohmann::json& targets, const std::string& name) {
  for (const auto& t : targets)
    if (t["switch"] == name) return t;
  throw std::runtime_error("no target " + name);
}

// A victim flow of `n` messages got through untouched: all completed, no retransmission, its QPs
// in RTS, and its target region holds what it wrote and nothing else.
void check_untouched(const nlohmann::json& f, std::uint64_t n) {
  INFO(f["name"]);
  CHECK(f["messages_completed"] == n);
  CHECK(f["completions"] == nlohmann::json({{"IBV_WC_SUCCESS", n}}));
  CHECK(f["retransmitted_packets"] == 0);
  CHECK(f["from_side"]["qp_state"] == "RTS");
  CHECK(f["to_side"]["qp_state"] == "RTS");
  CHECK(f["data_check"]["passed"] == true);
  CHECK(f["data_check"]["messages_checked"] == n);
  CHECK(f["data_check"]["target_bytes_differing"] == 0);
}

std::uint64_t dropped(const nlohmann::json& r, const std::string& reason) {
  return r["packets"]["dropped"][reason].get<std::uint64_t>();
}

}  // namespace

TEST_CASE("attack forged_slid: 16 RC WRITEs with another host's SLID (and every other field right) are dropped by "
          "the path check, and the flow then runs untouched",
          "[scenarios][security][attack]") {
  const nlohmann::json r = run_security("forged_slid");
  const auto& a = named(r["attacks"], "forged_slid");
  CHECK(a["packets_sent"] == 16);
  CHECK(a["slid"] == 5);  // h4's LID (the SM numbers h1 1, then sw1 2, h2 3, ...)
  // Every forged packet dropped at h2 by the path check, and nothing else lost anywhere.
  CHECK(dropped(r, "source_mismatch") == 16);
  CHECK(r["packets"]["dropped_total"] == 16);
  CHECK(port_of(r, "h2", 1)["discards"] == nlohmann::json({{"source_mismatch", 16}}));
  CHECK(r["packets"]["created"] == 16 + 8 + 8);  // the forged ones, h1's WRITEs and h2's ACKs
  // They never reached the PSN check: without the path check the first 8 (PSNs 0..7, which h2
  // expects) would have been executed and h1's WRITEs answered as duplicates, never written.
  const auto& f = named(r["flows"], "victim");
  check_untouched(f, 8);
  CHECK(f["to_side"]["counters"]["duplicates_received"] == 0);
  CHECK(f["to_side"]["counters"]["seq_naks_sent"] == 0);
  CHECK(f["to_side"]["counters"]["acks_sent"] == 8);
  CHECK(r["phases"]["drained"] == true);
}

TEST_CASE("attack replay: 8 copies of a flow's WRITEs with their old PSNs are duplicates: acknowledged again, "
          "never executed",
          "[scenarios][security][attack]") {
  const nlohmann::json r = run_security("replay");
  const auto& a = named(r["attacks"], "replay");
  CHECK(a["packets_sent"] == 8);
  CHECK(a["slid"] == 1);  // h1's: they pass the path check
  const auto& f = named(r["flows"], "victim");
  check_untouched(f, 8);  // the replays carried 0xEE: the region still holds h1's data
  CHECK(f["to_side"]["counters"]["duplicates_received"] == 8);
  CHECK(f["to_side"]["counters"]["acks_sent"] == 8 + 8);  // one re-ACK per replay
  CHECK(f["from_side"]["counters"]["stale_responses"] == 8);  // h1 ignores them: nothing outstanding
  CHECK(f["from_side"]["counters"]["acks_received"] == 8);
  CHECK(r["packets"]["dropped_total"] == 0);
  CHECK(r["packets"]["delivered"] == 32);
}

TEST_CASE("attack rkey_guess: 32 guessed R_Keys against random memory keys all refused (NAK, both QPs to ERR), and "
          "with sequential keys the first guess hits",
          "[scenarios][security][attack]") {
  {
    const nlohmann::json r = run_security("rkey_guess");
    const auto& a = named(r["attacks"], "rkey_guess");
    CHECK(a["attempts"] == 32);
    CHECK(a["hits"] == 0);
    CHECK(a["completions"] == nlohmann::json({{"IBV_WC_REM_ACCESS_ERR", 32}}));
    CHECK(a["attacker_qps_in_error"] == 32);
    CHECK(a["target_qps_in_error"] == 32);
    CHECK(a["target_remote_access_errors"] == 32);
    CHECK(a["first_guess"] == 0xA5);
    CHECK(a["last_guess"] == (31 << 8 | 0xA5));
    check_untouched(named(r["flows"], "victim"), 8);
    CHECK(r["packets"]["dropped_total"] == 0);  // refused by NAK, not dropped
    CHECK(r["hca_model"][1]["memory_keys"] == "random");
  }
  {
    // The default sequential keys: the victim's region is h2's first, its R_Key 0 << 8 | 0xA5.
    const nlohmann::json r = run_security("rkey_guess", "--set hca_model.memory_keys=sequential");
    const auto& a = named(r["attacks"], "rkey_guess");
    CHECK(a["hits"] == 1);
    CHECK(a["completions"] == nlohmann::json({{"IBV_WC_REM_ACCESS_ERR", 31}, {"IBV_WC_SUCCESS", 1}}));
    const auto& f = named(r["flows"], "victim");
    CHECK(f["data_check"]["passed"] == false);
    CHECK(f["data_check"]["target_bytes_differing"] == 64);  // the attacker's 64 bytes of 0xEE
  }
}

TEST_CASE("attack rogue_smp: directed-route SubnSets with a guessed M_Key are refused by every switch (M_Key "
          "violations, trap 256), nothing applied, and without the SM's M_Key they hijack the routes",
          "[scenarios][security][attack]") {
  {
    const nlohmann::json r = run_security("rogue_smp");
    const auto& a = named(r["attacks"], "rogue_sm");
    CHECK(a["packets_sent"] == 16);
    for (const char* sw : {"sw1", "sw2"}) {
      INFO(sw);
      const auto& t = named_switch(a["targets"], sw);
      CHECK(t["smps_processed"] == 8);
      CHECK(t["m_key_refused"] == 8);
      CHECK(t["hijack_in_place"] == false);
    }
    CHECK(named_switch(a["targets"], "sw2")["path"] == nlohmann::json({1}));       // h8's own switch
    CHECK(named_switch(a["targets"], "sw1")["path"] == nlohmann::json({1, 35}));   // over the first inter-switch link
    const auto& mk = r["subnet_manager"]["m_key"];
    CHECK(mk["protect_bits"] == 2);
    CHECK(mk["lease_period_s"] == 60);
    CHECK(mk["violations"] == nlohmann::json({{"sw1", 8}, {"sw2", 8}}));
    // An SMP every 2 us, the two switches taking turns: each switch is hit every 4 us and sends a
    // trap at most every 4.096 us, so every other violation raises one: 4 per switch.
    CHECK(mk["bad_m_key_traps"] == 8);
    CHECK(r["subnet_manager"]["traps_received"] == 8);
    CHECK(r["subnet_manager"]["sweeps"].size() == 1);  // a trap 256 starts no sweep
    check_untouched(named(r["flows"], "victim"), 8);
    CHECK(r["packets"]["dropped_total"] == 0);
    CHECK(r["management_packets"]["dropped"] == nlohmann::json::object());
  }
  {
    // No M_Key: the same SMPs are applied, the routes hijacked, and h1's flow never gets through.
    const nlohmann::json r = run_security("rogue_smp", "--set 'subnet_manager={}'");
    const auto& a = named(r["attacks"], "rogue_sm");
    for (const auto& t : a["targets"]) CHECK(t["hijack_in_place"] == true);
    CHECK_FALSE(r["subnet_manager"].contains("m_key"));
    const auto& f = named(r["flows"], "victim");
    CHECK(f["messages_completed"] == 0);
    CHECK(f["completions"] == nlohmann::json({{"IBV_WC_RETRY_EXC_ERR", 1}}));
  }
}

TEST_CASE("attack smp_flood: 2000 SMPs at line rate while the SM sweeps: the switch's SMA queue overflows, the "
          "drops are counted, the SM resends what it lost and the fabric comes up all the same",
          "[scenarios][security][attack]") {
  const nlohmann::json r = run_security("smp_flood");
  const auto& a = named(r["attacks"], "flood");
  CHECK(a["packets_sent"] == 2000);
  const auto& t = a["targets"][0];
  CHECK(t["switch"] == "sw1");
  CHECK(t["smps_overflowed"] == 1951);
  // Every SMP that reached sw1's SMA was served or dropped; the dropped ones are the overflow.
  CHECK(r["management_packets"]["dropped"] == nlohmann::json({{"vl15_overflow", 1951}}));
  const auto& sm = r["subnet_manager"];
  CHECK(sm["sweeps"][0]["retries"] == 4);  // the SM's own SMPs lost to the flood, sent again
  CHECK(sm["sweeps"][0]["errors"] == 0);   // none given up: every port configured
  CHECK(sm["smps_sent"] == 107 + 4);
  // Up later than without the flood (122.8416 us).
  CHECK(sm["bring_up_ns"] == Approx(219916.8).margin(1e-6));
  CHECK(r["phases"]["fabric_up_ns"] == Approx(219916.8).margin(1e-6));
  check_untouched(named(r["flows"], "victim"), 8);
  CHECK(r["packets"]["dropped_total"] == 0);

  const nlohmann::json quiet = run_security("smp_flood", "--set 'attacks=[]'");
  CHECK(quiet["subnet_manager"]["bring_up_ns"] == Approx(122841.6).margin(1e-6));
  CHECK(quiet["subnet_manager"]["sweeps"][0]["retries"] == 0);
  CHECK(quiet["management_packets"]["dropped"] == nlohmann::json::object());
}

TEST_CASE("attack partition_probe: a host outside the partition and a limited member probing another limited one "
          "are dropped by the P_Key check, and a limited member probing a full one passes it and is dropped by the "
          "path check",
          "[scenarios][security][attack]") {
  const nlohmann::json r = run_security("partition_probe");
  CHECK(named(r["attacks"], "outside")["p_key"] == 0xFFFF);
  CHECK(named(r["attacks"], "limited_to_limited")["p_key"] == 0x0001);
  CHECK(named(r["attacks"], "limited_to_full")["p_key"] == 0x0001);
  for (const auto& a : r["attacks"]) CHECK(a["packets_sent"] == 8);
  // h2 (member's responder, full 0x8001): 8 from outside by P_Key, 8 from the limited h3 by path.
  CHECK(port_of(r, "h2", 1)["discards"] == nlohmann::json({{"pkey_violation", 8}, {"source_mismatch", 8}}));
  // h4 (limited_member's responder, limited 0x0001): limited to limited, by P_Key.
  CHECK(port_of(r, "h4", 1)["discards"] == nlohmann::json({{"pkey_violation", 8}}));
  CHECK(dropped(r, "pkey_violation") == 16);
  CHECK(dropped(r, "source_mismatch") == 8);
  CHECK(r["packets"]["dropped_total"] == 24);
  check_untouched(named(r["flows"], "member"), 8);
  check_untouched(named(r["flows"], "limited_member"), 8);
}

TEST_CASE("attacks: bad attack entries are located errors (exit 2) naming what was expected", "[scenarios][input][security]") {
  const std::string dir = scratch_dir("attacks_bad_input");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";
  const std::string flows =
      "workload:\n"
      "  - {name: v, transport: rc, verb: write, from: h1, to: h2, message_size: 64, iterations: 1}\n"
      "  - {name: r, transport: rc, verb: read, from: h1, to: h2, message_size: 64, iterations: 1}\n";
  struct Case {
    std::string attacks;
    std::string where;  // :line:col: of the culprit
    std::string expected;
  };
  const Case cases[] = {
      {"  - {kind: forge, from: h3}\n", ":6:12:", "expected forged_slid, replay, partition_probe, rkey_guess, rogue_smp or smp_flood, got 'forge'"},
      {"  - {kind: replay, from: sw1, target: v}\n", ":6:26:", "expected the name of an HCA"},
      {"  - {kind: replay, from: h3, target: w}\n", ":6:38:", "expected the name of a verbs flow of this scenario's workload, got 'w'"},
      {"  - {kind: replay, from: h3, target: r}\n", ":6:38:", "expected an RC verbs flow with verb: write, got 'r' (read)"},
      {"  - {kind: forged_slid, from: h3, target: v}\n", ":6:5:", "expected key 'slid_of'"},
      {"  - {kind: smp_flood, from: h3, target: v}\n", ":6:33:", "got unknown key 'target'"},
      {"  - {kind: replay, from: h3, target: v, at: bring_up}\n", ":6:45:", "only rogue_smp and smp_flood can attack during the bring-up"},
      {"  - {kind: partition_probe, from: h3, target: v, p_key_index: 1}\n", ":6:63:",
       "expected an index into the P_Key table of h3, which has 1 entry, got '1'"},
      {"  - {kind: rogue_smp, from: h3, switches: [h1]}\n", ":6:44:", "expected the name of a switch"},
      {"  - {kind: smp_flood, from: h3, packets: 0}\n", ":6:42:", "expected an integer in 1..1000000, got '0'"},
      {"  - {kind: rkey_guess, from: h3, target: r, attempts: 5000}\n", ":6:55:", "expected an integer in 1..4096"},
      {"  - {kind: smp_flood, from: h3}\n  - {kind: smp_flood, from: h4}\n  - {kind: smp_flood, from: h5, name: attack0}\n",
       ":8:39:", "expected each attack name once, got 'attack0' again"},
  };
  for (const Case& c : cases) {
    INFO(c.attacks);
    const std::string path = dir + "/bad.yaml";
    std::ofstream(path) << "topology: " << topo << "\n" << flows << "attacks:\n" << c.attacks;
    const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + c.where) != std::string::npos);
    CHECK(r.output.find(c.expected) != std::string::npos);
  }
}

TEST_CASE("M_Key and memory key settings: bad values are located errors (exit 2)", "[scenarios][input][security]") {
  const std::string dir = scratch_dir("attacks_bad_keys");
  const std::string topo = std::string(IBFSIM_SOURCE_DIR) + "/topologies/quickstart.yaml";
  const std::pair<std::string, std::string> cases[] = {
      {"subnet_manager: {m_key_protect_bits: 2}",
       ":2:38: expected a nonzero m_key beside m_key_protect_bits (it protects the M_Key), got no m_key"},
      {"subnet_manager: {m_key: 5, m_key_protect_bits: 4}", ":2:48: expected an integer in 0..3, got '4'"},
      {"subnet_manager: {m_key: -1}", ":2:25: expected a non-negative integer, got '-1'"},
      {"hca_model: {memory_keys: secret}", ":2:26: expected sequential, key_byte or random, got 'secret'"},
  };
  for (const auto& [text, message] : cases) {
    INFO(text);
    const std::string path = dir + "/bad.yaml";
    std::ofstream(path) << "topology: " << topo << "\n" << text << "\n";
    const CommandResult r = run_ibfsim("run " + path + " -o " + dir + "/out");
    INFO(r.output);
    CHECK(r.exit_code == 2);
    CHECK(r.output.find(path + message) != std::string::npos);
  }
}
