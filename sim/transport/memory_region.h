// Memory regions and the protection checks on them (IBA Vol1 ch. 10): an MR belongs to a
// protection domain, covers [addr, addr+length) of host memory and grants access flags; its
// L_Key serves local work requests, its R_Key remote RDMA and atomics.
#pragma once
#include <cstdint>
#include <optional>
#include <vector>

#include "sim/transport/verbs.h"

namespace ibfsim {

enum class MrCheck : std::uint8_t { kOk, kBadKey, kWrongPd, kOutOfBounds, kNoAccess };

class MrTable {
 public:
  // Registers a region; remote write or atomic access requires local write (as in libibverbs:
  // EINVAL otherwise, reported here as nullopt).
  std::optional<verbs::ibv_mr> reg(verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length, unsigned access);
  bool dereg(std::uint32_t lkey);

  // Remote access by R_Key to [va, va+len) needing `access` (an IBV_ACCESS_REMOTE_* flag).
  // A zero-length access checks nothing (the spec lets a zero-length RDMA carry any R_Key).
  MrCheck check_remote(std::uint32_t rkey, verbs::PdHandle pd, std::uint64_t va, std::uint64_t len,
                       unsigned access) const;
  // A local scatter/gather element; `access` is IBV_ACCESS_LOCAL_WRITE when the HCA writes it.
  MrCheck check_local(const verbs::ibv_sge& sge, verbs::PdHandle pd, unsigned access) const;

 private:
  const verbs::ibv_mr* find(std::uint32_t key) const;
  std::vector<verbs::ibv_mr> mrs_;  // index = key >> 8; dead entries have length 0 and access 0
  std::vector<bool> live_;
};

}  // namespace ibfsim
