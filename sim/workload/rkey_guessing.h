// rkey_guess (attack_spec.h): the attacker connects to the host of a flow's target region as any
// host may (one RC QP pair per attempt, the target's QPs in the region's protection domain, as a
// server accepting connections would make them) and on each connection posts one RDMA WRITE of
// 64 bytes of 0xEE to the region's address with a guessed R_Key: attempt k guesses k << 8 | 0xA5,
// the key a ConnectX-like HCA gives its k-th region (memory_region.h). A wrong key is refused by
// the responder's R_Key check (R34): NAK remote access error, both QPs to ERR, one QP pair spent
// per guess. With `hca_model.memory_keys: random` every key is 32 random bits and no guess of
// this kind hits; with the default sequential keys one does, and the region changes.
#pragma once
#include <map>
#include <string>
#include <vector>

#include "sim/transport/hca.h"
#include "sim/workload/attack.h"

namespace ibfsim {

class RkeyGuessing final : public Attack, private CompletionListener {
 public:
  RkeyGuessing(const AttackSpec& spec, Hca& attacker, Hca& victim, const VerbsFlow::Connection& target,
               VerbsFlowOwner* owner);

  void setup(Time begin) override;
  bool done() const override { return completed_ == spec_.packets; }
  nlohmann::json results() const override;
  std::string summary() const override;

  // Event (event.h): attempt `k` is due.
  void attempt_due(std::uint64_t k);
  // The R_Key attempt k guesses.
  static std::uint32_t guess(std::uint64_t k) { return static_cast<std::uint32_t>(k << 8) | 0xA5; }

 private:
  void on_completion(verbs::CqHandle cq, const verbs::ibv_wc& wc) override;

  Hca& attacker_;
  Hca& victim_;
  VerbsFlow::Connection target_;
  VerbsFlowOwner* owner_;
  verbs::CqHandle cq_ = 0;
  verbs::ibv_mr local_mr_;
  std::vector<QueuePair*> mine_, theirs_;  // one pair per attempt
  std::uint64_t posted_ = 0, completed_ = 0;
  std::map<int, std::uint64_t> statuses_;
};

}  // namespace ibfsim
