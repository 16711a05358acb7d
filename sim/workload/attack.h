// One attack of a scenario (attack_spec.h) as it runs: a host that forges packets with raw access
// to its own HCA (Hca::send_raw for transport packets, its QP0 for SMPs) or opens connections as
// any host may. It changes nothing of the model: whatever refuses it is the fabric's own checks,
// counted where they happen (drops by reason, the QPs' counters, M_KeyViolations and traps).
//
// An attack is told, as the strongest attacker would know it, what its target's two sides
// exchanged out of band (VerbsFlow::Connection) and the fabric's topology; it sends on its own
// host's calendar and reads nothing of another module.
#pragma once
#include <nlohmann/json.hpp>

#include <memory>
#include <string>
#include <vector>

#include "sim/core/time.h"
#include "sim/fabric/fabric.h"
#include "sim/report/run_facts.h"
#include "sim/workload/attack_spec.h"
#include "sim/workload/verbs_flow.h"

namespace ibfsim {

class Attack {
 public:
  explicit Attack(AttackSpec spec) : spec_(std::move(spec)) {}
  virtual ~Attack() = default;
  Attack(const Attack&) = delete;
  Attack& operator=(const Attack&) = delete;

  const AttackSpec& spec() const { return spec_; }
  const std::string& name() const { return spec_.name; }  // in event traces
  // Creates what it needs and schedules its first packet at `begin` (its start, from time 0 or from
  // phases.start); call during elaboration or when the traffic starts.
  virtual void setup(Time begin) = 0;
  // Everything sent (and, for connections, every completion in).
  virtual bool done() const = 0;
  // results.json's entry: name, kind, from, target, and what the attack did and met (totals over
  // its target switches, whose own figures are targets()).
  virtual nlohmann::json results() const = 0;
  // The switches it sent SMPs to and what each did with them (attack_targets.csv); none for the
  // attacks on a flow.
  virtual std::vector<AttackTargetFacts> targets() const { return {}; }
  // One line for the printed summary.
  virtual std::string summary() const = 0;

 protected:
  nlohmann::json common_results() const;
  AttackSpec spec_;
};

// The attack `spec` on `fabric`; `flows`: the scenario's verbs flows (set up), `owner` is told
// when it is done (the run may end then).
std::unique_ptr<Attack> make_attack(const AttackSpec& spec, Fabric& fabric,
                                    const std::vector<std::unique_ptr<VerbsFlow>>& flows, VerbsFlowOwner* owner);

}  // namespace ibfsim
