#include "sim/workload/attack_spec.h"

#include <array>
#include <utility>

#include "sim/fabric/yaml_input.h"
#include "sim/workload/scenario.h"

namespace ibfsim {

namespace {

constexpr std::array<std::pair<AttackKind, const char*>, 6> kKinds = {{
    {AttackKind::kForgedSlid, "forged_slid"},
    {AttackKind::kReplay, "replay"},
    {AttackKind::kPartitionProbe, "partition_probe"},
    {AttackKind::kRkeyGuess, "rkey_guess"},
    {AttackKind::kRogueSmp, "rogue_smp"},
    {AttackKind::kSmpFlood, "smp_flood"},
}};

bool on_flow(AttackKind k) {
  return k == AttackKind::kForgedSlid || k == AttackKind::kReplay || k == AttackKind::kPartitionProbe ||
         k == AttackKind::kRkeyGuess;
}
bool smps(AttackKind k) { return k == AttackKind::kRogueSmp || k == AttackKind::kSmpFlood; }

void check_node(const Scenario& s, const YamlValue& v, NodeType type) {
  const std::string name = v.as<std::string>();
  const auto n = s.topology.find_node(name);
  if (!n || s.topology.nodes[*n].type != type)
    v.fail(std::string(type == NodeType::kHca ? "the name of an HCA in " : "the name of a switch in ") + s.topology_file,
           "'" + name + "'");
}

// The verbs flow an attack aims at: an RC flow whose verb has a target region (write; rkey_guess
// also read and atomics), so that there is memory to protect and a responder QP to reach.
void check_target(const Scenario& s, const YamlValue& v, AttackKind kind) {
  const std::string name = v.as<std::string>();
  for (const VerbsFlowSpec& f : s.verbs_flows) {
    if (f.name != name) continue;
    const bool remote = verb_is_write(f.verb) || f.verb == Verb::kRead || verb_is_atomic(f.verb);
    const bool ok = f.type == verbs::IBV_QPT_RC && (kind == AttackKind::kRkeyGuess ? remote : f.verb == Verb::kWrite);
    if (!ok)
      v.fail(kind == AttackKind::kRkeyGuess ? "an RC verbs flow with a target region (verb write, read or an atomic)"
                                            : "an RC verbs flow with verb: write",
             "'" + name + "' (" + verb_name(f.verb) + (f.type == verbs::IBV_QPT_RC ? "" : ", not RC") + ")");
    return;
  }
  v.fail("the name of a verbs flow of this scenario's workload", "'" + name + "'");
}

AttackSpec parse_attack(const YamlValue& item, std::size_t index, const Scenario& s) {
  YamlMap m = item.as_map();
  AttackSpec a;
  a.name = m.optional<std::string>("name", "attack" + std::to_string(index));
  const YamlValue kind = m.get("kind");
  const std::string k = kind.as<std::string>();
  bool found = false;
  for (const auto& [value, name] : kKinds)
    if (k == name) a.kind = value, found = true;
  if (!found) kind.fail("forged_slid, replay, partition_probe, rkey_guess, rogue_smp or smp_flood", "'" + k + "'");

  std::vector<std::string_view> keys = {"name", "kind", "from", "start", "interval", "at"};
  if (on_flow(a.kind)) keys.push_back("target");
  keys.push_back(a.kind == AttackKind::kRkeyGuess ? "attempts" : "packets");
  if (a.kind == AttackKind::kForgedSlid) keys.push_back("slid_of");
  if (a.kind == AttackKind::kPartitionProbe) keys.push_back("p_key_index");
  if (a.kind == AttackKind::kRogueSmp) keys.insert(keys.end(), {"switches", "m_key"});
  m.check_no_unknown_keys(keys);

  const YamlValue from = m.get("from");
  check_node(s, from, NodeType::kHca);
  a.from = from.as<std::string>();
  if (on_flow(a.kind)) {
    const YamlValue t = m.get("target");
    check_target(s, t, a.kind);
    a.target = t.as<std::string>();
  }
  if (a.kind == AttackKind::kForgedSlid) {
    const YamlValue v = m.get("slid_of");
    check_node(s, v, NodeType::kHca);
    a.slid_of = v.as<std::string>();
  }
  if (a.kind == AttackKind::kPartitionProbe) {
    a.p_key_index = m.optional_in_range<std::uint16_t>("p_key_index", 0, 0, 31);
    HcaConfig c;
    s.hca_model.apply(a.from, c);
    if (a.p_key_index >= c.p_keys.size())
      m.get("p_key_index").fail("an index into the P_Key table of " + a.from + ", which has " +
                                    std::to_string(c.p_keys.size()) + (c.p_keys.size() == 1 ? " entry" : " entries"),
                                "'" + std::to_string(a.p_key_index) + "'");
  }
  if (a.kind == AttackKind::kRogueSmp) {
    for (const YamlValue& v : m.optional_list("switches")) {
      check_node(s, v, NodeType::kSwitch);
      a.switches.push_back(v.as<std::string>());
    }
    if (m.has("switches") && a.switches.empty()) m.get("switches").fail("at least one switch (or leave the key out for every switch)");
    a.m_key = m.optional<std::uint64_t>("m_key", 0);
  }
  a.packets = a.kind == AttackKind::kRkeyGuess ? m.optional_in_range<std::uint64_t>("attempts", 16, 1, 4096)
                                               : m.optional_in_range<std::uint64_t>("packets", 8, 1, 1000000);
  a.start = m.duration("start", 0);
  a.interval = m.duration("interval", a.kind == AttackKind::kSmpFlood ? 0 : kUs);
  if (auto at = m.find("at")) {
    const std::string when = at->as<std::string>();
    if (when != "traffic" && when != "bring_up") at->fail("traffic or bring_up", "'" + when + "'");
    if (when == "bring_up" && !smps(a.kind)) at->fail("traffic: only rogue_smp and smp_flood can attack during the bring-up (the others need LIDs)", "'bring_up'");
    if (when == "bring_up" && !s.subnet_manager.in_band) at->fail("traffic (with subnet_manager: static there is no bring-up to attack)", "'bring_up'");
    a.from_time_zero = when == "bring_up";
  }
  return a;
}

}  // namespace

const char* attack_kind_name(AttackKind k) {
  for (const auto& [value, name] : kKinds)
    if (value == k) return name;
  return "?";
}

std::vector<AttackSpec> parse_attacks(const std::vector<YamlValue>& list, const Scenario& s) {
  std::vector<AttackSpec> out;
  for (std::size_t i = 0; i < list.size(); ++i) {
    AttackSpec a = parse_attack(list[i], i, s);
    for (const AttackSpec& other : out)
      if (other.name == a.name) {
        const YamlMap m = list[i].as_map();
        (m.has("name") ? m.get("name") : list[i]).fail("each attack name once", "'" + a.name + "' again");
      }
    out.push_back(std::move(a));
  }
  return out;
}

}  // namespace ibfsim
