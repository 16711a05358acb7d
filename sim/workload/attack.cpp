#include "sim/workload/attack.h"

#include "sim/core/error.h"
#include "sim/workload/forged_requests.h"
#include "sim/workload/rkey_guessing.h"
#include "sim/workload/rogue_smps.h"

namespace ibfsim {

nlohmann::json Attack::common_results() const {
  nlohmann::json j = {{"name", spec_.name}, {"kind", attack_kind_name(spec_.kind)}, {"from", spec_.from}};
  if (!spec_.target.empty()) j["target"] = spec_.target;
  return j;
}

std::unique_ptr<Attack> make_attack(const AttackSpec& spec, Fabric& fabric,
                                    const std::vector<std::unique_ptr<VerbsFlow>>& flows, VerbsFlowOwner* owner) {
  const Topology& topo = fabric.topology();
  const std::size_t from = *topo.find_node(spec.from);
  Hca& attacker = *fabric.hca(from);
  if (spec.kind == AttackKind::kRogueSmp || spec.kind == AttackKind::kSmpFlood) {
    std::vector<RogueSmps::Target> targets;
    std::vector<std::size_t> switches;
    if (spec.kind == AttackKind::kSmpFlood) {
      // The attacker's own switch: the first hop of its port 1.
      const auto cable = topo.cable_at(from, 1);
      IBFSIM_CHECK(cable.has_value(), "smp_flood: the attacker's port 1 is not cabled");
      switches.push_back(topo.cables[*cable].far_end(from).node);
    } else if (spec.switches.empty()) {
      switches = topo.switches();
    } else {
      for (const std::string& s : spec.switches) switches.push_back(*topo.find_node(s));
    }
    for (std::size_t s : switches) {
      std::vector<PortNum> path = directed_route(topo, from, s);
      if (path.empty() || topo.nodes[s].type != NodeType::kSwitch) continue;  // out of reach
      targets.push_back(RogueSmps::Target{topo.nodes[s].name, fabric.switch_sma(s), std::move(path)});
    }
    IBFSIM_CHECK(!targets.empty(), "attack " + spec.name + ": no switch reachable from " + spec.from);
    return std::make_unique<RogueSmps>(spec, *fabric.hca_sma(from), std::move(targets), owner);
  }
  const VerbsFlow* target = nullptr;
  for (const auto& f : flows)
    if (f->name() == spec.target) target = f.get();
  IBFSIM_CHECK(target != nullptr, "attack " + spec.name + ": no verbs flow " + spec.target);
  const VerbsFlow::Connection c = target->connection();
  switch (spec.kind) {
    case AttackKind::kForgedSlid:
      return std::make_unique<ForgedRequests>(spec, attacker, c, fabric.hca(*topo.find_node(spec.slid_of))->lid(),
                                              c.p_key, owner);
    case AttackKind::kReplay:
      return std::make_unique<ForgedRequests>(spec, attacker, c, c.requester_lid, c.p_key, owner);
    case AttackKind::kPartitionProbe:
      return std::make_unique<ForgedRequests>(spec, attacker, c, attacker.lid(),
                                              attacker.port_p_key(1, spec.p_key_index), owner);
    case AttackKind::kRkeyGuess:
      return std::make_unique<RkeyGuessing>(spec, attacker, *fabric.hca(*topo.find_node(target->spec().to)), c, owner);
    default:
      break;
  }
  IBFSIM_CHECK(false, "attack " + spec.name + ": unknown kind");
  return nullptr;
}

}  // namespace ibfsim
