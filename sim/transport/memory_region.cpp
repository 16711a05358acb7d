#include "sim/transport/memory_region.h"

namespace ibfsim {

using namespace verbs;

std::optional<ibv_mr> MrTable::reg(PdHandle pd, std::uint64_t addr, std::uint64_t length, unsigned access) {
  if ((access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE))
    return std::nullopt;
  ibv_mr mr;
  mr.pd = pd;
  mr.addr = addr;
  mr.length = length;
  mr.access = access;
  const std::uint32_t index = static_cast<std::uint32_t>(mrs_.size());
  if (rng_) {
    mr.lkey = random_key();
    by_key_[mr.lkey] = index;
    mr.rkey = random_key();
    by_key_[mr.rkey] = index;
  } else {
    // Index in the high 24 bits, a per-index tag below, so that a stale key never matches.
    mr.lkey = (index << 8) | 0x5A;
    mr.rkey = (index << 8) | 0xA5;
  }
  mrs_.push_back(mr);
  live_.push_back(true);
  return mr;
}

std::uint32_t MrTable::random_key() {
  for (;;) {
    const auto k = static_cast<std::uint32_t>(rng_->next_u64() >> 32);
    if (k != 0 && by_key_.count(k) == 0) return k;
  }
}

bool MrTable::dereg(std::uint32_t lkey) {
  const ibv_mr* mr = find(lkey);
  if (!mr || mr->lkey != lkey) return false;
  const auto index = static_cast<std::size_t>(mr - mrs_.data());
  live_[index] = false;
  by_key_.erase(mr->lkey);  // (random keys) never found again, and free to be drawn again
  by_key_.erase(mr->rkey);
  return true;
}

const ibv_mr* MrTable::find(std::uint32_t key) const {
  std::uint32_t index = key >> 8;
  if (rng_) {
    const auto it = by_key_.find(key);
    if (it == by_key_.end()) return nullptr;
    index = it->second;
  }
  if (index >= mrs_.size() || !live_[index]) return nullptr;
  return &mrs_[index];
}

MrCheck MrTable::check_remote(std::uint32_t rkey, PdHandle pd, std::uint64_t va, std::uint64_t len,
                              unsigned access) const {
  if (len == 0) return MrCheck::kOk;
  const ibv_mr* mr = find(rkey);
  if (!mr || mr->rkey != rkey) return MrCheck::kBadKey;
  if (mr->pd != pd) return MrCheck::kWrongPd;
  if (va < mr->addr || len > mr->length || va - mr->addr > mr->length - len) return MrCheck::kOutOfBounds;
  if ((mr->access & access) != access) return MrCheck::kNoAccess;
  return MrCheck::kOk;
}

MrCheck MrTable::check_local(const ibv_sge& sge, PdHandle pd, unsigned access) const {
  if (sge.length == 0) return MrCheck::kOk;
  const ibv_mr* mr = find(sge.lkey);
  if (!mr || mr->lkey != sge.lkey) return MrCheck::kBadKey;
  if (mr->pd != pd) return MrCheck::kWrongPd;
  if (sge.addr < mr->addr || sge.length > mr->length || sge.addr - mr->addr > mr->length - sge.length)
    return MrCheck::kOutOfBounds;
  if ((mr->access & access) != access) return MrCheck::kNoAccess;
  return MrCheck::kOk;
}

}  // namespace ibfsim
