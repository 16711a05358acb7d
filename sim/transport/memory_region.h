// Memory regions and the protection checks on them (IBA Vol1 ch. 10): an MR belongs to a
// protection domain, covers [addr, addr+length) of host memory and grants access flags; its
// L_Key serves local work requests, its R_Key remote RDMA and atomics.
//
// Keys are sequential by default: the region's index in the high 24 bits and a fixed tag below, as
// ConnectX hands out memory keys (index << 8 | key byte), which a peer can guess (the ReDMArk
// study, USENIX Security 2021). With random keys (use_random_keys) every L_Key and R_Key is 32
// random bits from a stream of the scenario's seed, never 0 and never one in use: a guess hits one
// of n live keys with probability n / 2^32.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/core/rng.h"
#include "sim/transport/verbs.h"

namespace ibfsim {

// The random stream of an HCA's memory keys: RngStream(seed, kMemoryKeyStream + node index).
constexpr std::uint64_t kMemoryKeyStream = std::uint64_t{0x4D4B} << 48;  // "MK"

enum class MrCheck : std::uint8_t { kOk, kBadKey, kWrongPd, kOutOfBounds, kNoAccess };

class MrTable {
 public:
  // From now on, keys come from `rng` (see above).
  void use_random_keys(RngStream rng) { rng_ = rng; }
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
  std::uint32_t random_key();
  std::vector<verbs::ibv_mr> mrs_;  // index = key >> 8 (sequential keys); dead entries have length 0 and access 0
  std::vector<bool> live_;
  std::optional<RngStream> rng_;                          // random keys
  std::unordered_map<std::uint32_t, std::uint32_t> by_key_;  // random keys: L_Key and R_Key -> index
};

}  // namespace ibfsim
