// Attacks with forged RC requests (attack_spec.h): RDMA WRITE Only packets to a verbs flow's
// responder QP, built byte for byte with the transport codecs (valid CRCs) and sent from the
// attacker's HCA as they are (Hca::send_raw), `interval` apart. Each carries the flow's QP number,
// region and R_Key (its out-of-band exchange, VerbsFlow::Connection) and a payload of 0xEE bytes,
// so that any one executed would change the region the flow checks. They differ in what they forge:
//  * forged_slid: another host's LID as SLID, the flow's P_Key, PSNs from the connection's first
//    (those the responder expects): only the path check (IBA 9.6.1.5: the SLID must be the QP's
//    peer's) stands in the way; it drops them as `source_mismatch`.
//  * replay: the flow's requester's SLID, the flow's P_Key, and PSNs from the connection's first:
//    sent after the flow has sent them, they are behind the responder's ePSN, duplicates (R26): the
//    responder acknowledges again and executes nothing.
//  * partition_probe: the attacker's own SLID, a P_Key of its own table: a host outside the
//    flow's partition is dropped by the P_Key check (`pkey_violation`, R37); a limited member of a
//    partition whose responder is a full member passes it (limited and full members talk) and is
//    then dropped by the path check.
#pragma once
#include <string>

#include "sim/transport/hca.h"
#include "sim/workload/attack.h"

namespace ibfsim {

class ForgedRequests final : public Attack {
 public:
  // `target`: the flow attacked; `slid`: the SLID the packets carry; `p_key`: their BTH P_Key.
  ForgedRequests(const AttackSpec& spec, Hca& attacker, const VerbsFlow::Connection& target, Lid slid,
                 std::uint16_t p_key, VerbsFlowOwner* owner);

  void setup(Time begin) override;
  bool done() const override { return sent_ == spec_.packets; }
  nlohmann::json results() const override;
  std::string summary() const override;

  // Event (event.h): the next forged packet is due.
  void packet_due();

 private:
  Hca& attacker_;
  VerbsFlow::Connection target_;
  Lid slid_;
  std::uint16_t p_key_;
  VerbsFlowOwner* owner_;
  std::uint64_t sent_ = 0;
};

}  // namespace ibfsim
