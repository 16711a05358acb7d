// Attacks with SMPs (attack_spec.h), sent from the attacker's QP0 as a rogue subnet manager would
// (through its HCA's SMA, HcaSma::send_from_sm: real directed-route SMPs on VL15), along directed
// routes the attacker works out from the topology (it could discover them: SubnGet is not protected
// below M_Key protection level 2):
//  * rogue_smp: SubnSets to switches, each carrying the attacker's guess of the M_Key, taking
//    turns at each switch: LinearForwardingTable block 0 with every entry pointing to port 1 (every
//    LID of the block hijacked), then PortInfo of port 0 giving the switch LID 0x0BEE. A subnet
//    manager that protects the ports with an M_Key (subnet_manager.m_key) has them refused:
//    M_KeyViolations, trap 256, nothing applied (sma.h, R41).
//  * smp_flood: SubnGet(NodeInfo) to the attacker's own switch, `interval` apart (0: as fast as
//    its port sends them): VL15 has no flow control, so what the switch's SMA cannot queue
//    (subnet_manager.sma.queue_depth) is dropped and counted (`vl15_overflow`), the subnet
//    manager's SMPs among them; it resends those after its timeout.
#pragma once
#include <string>
#include <vector>

#include "sim/subnet_manager/sma/hca_sma.h"
#include "sim/subnet_manager/sma/switch_sma.h"
#include "sim/workload/attack.h"

namespace ibfsim {

class RogueSmps final : public Attack {
 public:
  // `targets`: the switches attacked, each with its SMA and its directed route from the attacker.
  struct Target {
    std::string name;
    const SwitchSma* sma = nullptr;
    std::vector<PortNum> path;
  };
  RogueSmps(const AttackSpec& spec, HcaSma& attacker, std::vector<Target> targets, VerbsFlowOwner* owner);

  void setup(Time begin) override;
  bool done() const override { return sent_ == spec_.packets; }
  nlohmann::json results() const override;
  std::vector<AttackTargetFacts> targets() const override;
  std::string summary() const override;

  // Event (event.h): the next SMP is due.
  void smp_due();

  static constexpr Lid kHijackLid = 0x0BEE;  // the LID rogue_smp tries to give a switch
  static constexpr PortNum kHijackPort = 1;  // where its LFT block would send every LID

 private:
  Smp next_smp() const;

  HcaSma& attacker_;
  std::vector<Target> targets_;
  VerbsFlowOwner* owner_;
  std::uint64_t sent_ = 0;
  std::vector<SmaStats> before_;  // each target's SMA counts when the attack began
};

// The directed route (InitialPath[1..]) from port 1 of HCA `from` to switch `to`: breadth first
// over the topology's cables, fewest hops, lowest ports first. Empty if there is none.
std::vector<PortNum> directed_route(const Topology& topo, std::size_t from, std::size_t to);

}  // namespace ibfsim
