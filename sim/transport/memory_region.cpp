#include "sim/transport/memory_region.h"

#include <cerrno>

namespace ibfsim {

using namespace verbs;

const char* memory_key_mode_name(MemoryKeyMode m) {
  switch (m) {
    case MemoryKeyMode::kSequential: return "sequential";
    case MemoryKeyMode::kKeyByte: return "key_byte";
    case MemoryKeyMode::kRandom: return "random";
  }
  return "?";
}

namespace {
bool remote_needs_local_write(unsigned access) {
  return (access & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) && !(access & IBV_ACCESS_LOCAL_WRITE);
}
}  // namespace

void MrTable::set_key_mode(MemoryKeyMode mode, RngStream rng) {
  mode_ = mode;
  if (mode == MemoryKeyMode::kSequential) rng_.reset();
  else rng_ = rng;
}

std::uint32_t MrTable::random_key() {
  for (;;) {
    const auto k = static_cast<std::uint32_t>(rng_->next_u64() >> 32);
    if (k != 0 && by_key_.count(k) == 0 && by_prefix_.count(key_index(k)) == 0) return k;
  }
}

std::uint32_t MrTable::random_window_prefix() {
  for (;;) {
    const auto p = static_cast<std::uint32_t>(rng_->next_u64() >> 40);
    if (p != 0 && by_prefix_.count(p) == 0 && region_prefixes_.count(p) == 0) return p;
  }
}

std::uint8_t MrTable::draw_key_byte(std::uint32_t index, std::optional<std::uint8_t> other_than) {
  for (;;) {
    const auto b = static_cast<std::uint8_t>(rng_->next_u64() >> 56);
    if (make_memory_key(index, b) != 0 && b != other_than) return b;
  }
}

void MrTable::make_region_keys(std::uint32_t index, ibv_mr& mr, const ibv_mr* old) {
  switch (mode_) {
    case MemoryKeyMode::kSequential:
      // Reregistered: the next key byte, as ibv_inc_rkey counts.
      mr.lkey = old ? ibv_inc_rkey(old->lkey) : make_memory_key(index, kSequentialLkeyByte);
      mr.rkey = old ? ibv_inc_rkey(old->rkey) : make_memory_key(index, kSequentialRkeyByte);
      return;
    case MemoryKeyMode::kKeyByte: {
      const auto lb = old ? std::optional<std::uint8_t>(key_byte(old->lkey)) : std::nullopt;
      const auto rb = old ? std::optional<std::uint8_t>(key_byte(old->rkey)) : std::nullopt;
      mr.lkey = make_memory_key(index, draw_key_byte(index, lb));
      mr.rkey = make_memory_key(index, draw_key_byte(index, rb));
      return;
    }
    case MemoryKeyMode::kRandom:
      // Drawn while the old keys are still in use, so the new ones differ from them.
      mr.lkey = random_key();
      by_key_[mr.lkey] = index;
      mr.rkey = random_key();
      by_key_[mr.rkey] = index;
      ++region_prefixes_[key_index(mr.lkey)];
      ++region_prefixes_[key_index(mr.rkey)];
      return;
  }
}

void MrTable::forget_region_keys(const ibv_mr& mr) {
  if (mode_ != MemoryKeyMode::kRandom) return;
  // Never found again, and free to be drawn again.
  by_key_.erase(mr.lkey);
  by_key_.erase(mr.rkey);
  for (std::uint32_t k : {mr.lkey, mr.rkey}) {
    auto it = region_prefixes_.find(key_index(k));
    if (it != region_prefixes_.end() && --it->second == 0) region_prefixes_.erase(it);
  }
}

std::optional<ibv_mr> MrTable::reg(PdHandle pd, std::uint64_t addr, std::uint64_t length, unsigned access) {
  if (remote_needs_local_write(access) || entries_.size() > kMaxKeyIndex) return std::nullopt;
  Entry e;
  e.kind = Entry::kRegion;
  e.mr.pd = pd;
  e.mr.addr = addr;
  e.mr.length = length;
  e.mr.access = access;
  const auto index = static_cast<std::uint32_t>(entries_.size());
  make_region_keys(index, e.mr, nullptr);
  entries_.push_back(e);
  return e.mr;
}

int MrTable::rereg(ibv_mr& mr, unsigned flags, PdHandle pd, std::uint64_t addr, std::uint64_t length,
                   unsigned access) {
  const unsigned all = IBV_REREG_MR_CHANGE_TRANSLATION | IBV_REREG_MR_CHANGE_PD | IBV_REREG_MR_CHANGE_ACCESS;
  Entry* e = const_cast<Entry*>(region_by_lkey(mr.lkey));
  if (!e || flags == 0 || (flags & ~all) || e->windows > 0) return IBV_REREG_MR_ERR_INPUT;
  ibv_mr next = e->mr;
  if (flags & IBV_REREG_MR_CHANGE_PD) next.pd = pd;
  if (flags & IBV_REREG_MR_CHANGE_TRANSLATION) next.addr = addr, next.length = length;
  if (flags & IBV_REREG_MR_CHANGE_ACCESS) next.access = access;
  if (remote_needs_local_write(next.access)) return IBV_REREG_MR_ERR_INPUT;
  const ibv_mr old = e->mr;
  const auto index = static_cast<std::uint32_t>(e - entries_.data());
  make_region_keys(index, next, &old);
  forget_region_keys(old);
  e->mr = next;
  mr = next;
  return 0;
}

int MrTable::dereg(std::uint32_t lkey) {
  Entry* e = const_cast<Entry*>(region_by_lkey(lkey));
  if (!e) return EINVAL;
  if (e->windows > 0) return EBUSY;
  forget_region_keys(e->mr);
  e->kind = Entry::kFree;
  return 0;
}

std::uint32_t MrTable::bound_windows(std::uint32_t lkey) const {
  const Entry* e = region_by_lkey(lkey);
  return e ? e->windows : 0;
}

std::optional<ibv_mw> MrTable::alloc_mw(PdHandle pd, ibv_mw_type type) {
  if (entries_.size() > kMaxKeyIndex) return std::nullopt;
  const auto index = static_cast<std::uint32_t>(entries_.size());
  Entry e;
  e.kind = Entry::kWindow;
  e.mw.type = type;
  e.mw.pd = pd;
  switch (mode_) {
    case MemoryKeyMode::kSequential: e.mw.rkey = make_memory_key(index, kSequentialRkeyByte); break;
    case MemoryKeyMode::kKeyByte: e.mw.rkey = make_memory_key(index, draw_key_byte(index, std::nullopt)); break;
    case MemoryKeyMode::kRandom: {
      const std::uint32_t prefix = random_window_prefix();
      e.mw.rkey = make_memory_key(prefix, draw_key_byte(prefix, std::nullopt));
      by_prefix_[prefix] = index;
      break;
    }
  }
  entries_.push_back(e);
  ibv_mw mw;
  mw.pd = pd;
  mw.rkey = e.mw.rkey;
  mw.handle = index;
  mw.type = type;
  return mw;
}

const MemoryWindow* MrTable::window(MwHandle h) const {
  return h < entries_.size() && entries_[h].kind == Entry::kWindow ? &entries_[h].mw : nullptr;
}

void MrTable::unbind(MemoryWindow& w) {
  if (w.bound && w.length > 0) --entries_[w.region].windows;
  w.bound = false;
  w.region = 0;
  w.addr = w.length = 0;
  w.access = 0;
  w.qp = 0;
}

int MrTable::dealloc_mw(MwHandle h) {
  if (!window(h)) return EINVAL;
  Entry& e = entries_[h];
  unbind(e.mw);
  if (mode_ == MemoryKeyMode::kRandom) by_prefix_.erase(key_index(e.mw.rkey));
  e.kind = Entry::kFree;
  return 0;
}

MwResult MrTable::bind_mw(MwHandle h, const MwBindRequest& b) {
  if (!window(h)) return ++mw_stats_.bind_errors, MwResult::kNoWindow;
  MemoryWindow& w = entries_[h].mw;
  const Entry* region = b.info.length > 0 ? region_by_lkey(b.info.mr.lkey) : nullptr;
  const MwResult r = check_bind(w, window_key_index(w), region ? &region->mr : nullptr, b);
  if (r != MwResult::kOk) return ++mw_stats_.bind_errors, r;
  ++mw_stats_.binds;
  unbind(w);  // a type 1 window may be rebound at any time
  w.rkey = b.new_rkey;
  if (b.info.length == 0) return MwResult::kOk;  // type 1: unbound, with its new key
  w.bound = true;
  w.region = static_cast<std::uint32_t>(region - entries_.data());
  w.addr = b.info.addr;
  w.length = b.info.length;
  w.access = b.info.mw_access_flags;
  if (w.type == IBV_MW_TYPE_2) w.qp = b.qpn;
  ++entries_[w.region].windows;
  return MwResult::kOk;
}

MwResult MrTable::invalidate(std::uint32_t rkey, PdHandle pd, Qpn qpn, bool remote) {
  Entry* e = find(rkey);
  MwResult r = MwResult::kBadKey;
  if (e && e->kind == Entry::kRegion && (e->mr.rkey == rkey || e->mr.lkey == rkey)) r = MwResult::kRegionKey;
  else if (e && e->kind == Entry::kWindow) r = check_invalidate(e->mw, rkey, pd, qpn, remote);
  if (r != MwResult::kOk) return ++mw_stats_.invalidation_errors, r;
  unbind(e->mw);
  ++(remote ? mw_stats_.remote_invalidations : mw_stats_.local_invalidations);
  return r;
}

const MrTable::Entry* MrTable::find(std::uint32_t key) const {
  std::uint32_t index = key_index(key);
  if (mode_ == MemoryKeyMode::kRandom) {
    if (const auto it = by_key_.find(key); it != by_key_.end()) {
      index = it->second;
    } else {
      const auto w = by_prefix_.find(key_index(key));
      if (w == by_prefix_.end()) return nullptr;
      index = w->second;
    }
  }
  if (index >= entries_.size() || entries_[index].kind == Entry::kFree) return nullptr;
  return &entries_[index];
}

const MrTable::Entry* MrTable::region_by_lkey(std::uint32_t lkey) const {
  const Entry* e = find(lkey);
  return e && e->kind == Entry::kRegion && e->mr.lkey == lkey ? e : nullptr;
}

MrCheck MrTable::check_remote(std::uint32_t rkey, PdHandle pd, Qpn qpn, std::uint64_t va, std::uint64_t len,
                              unsigned access) const {
  if (len == 0) return MrCheck::kOk;
  const Entry* e = find(rkey);
  if (!e) return MrCheck::kBadKey;
  if (e->kind == Entry::kWindow) return check_window_access(e->mw, rkey, pd, qpn, va, len, access);
  const ibv_mr& mr = e->mr;
  if (mr.rkey != rkey) return MrCheck::kBadKey;
  if (mr.pd != pd) return MrCheck::kWrongPd;
  if (va < mr.addr || len > mr.length || va - mr.addr > mr.length - len) return MrCheck::kOutOfBounds;
  if ((mr.access & access) != access) return MrCheck::kNoAccess;
  return MrCheck::kOk;
}

bool MrTable::names_window(std::uint32_t rkey) const {
  const Entry* e = find(rkey);
  return e && e->kind == Entry::kWindow;
}

MrCheck MrTable::check_local(const ibv_sge& sge, PdHandle pd, unsigned access) const {
  if (sge.length == 0) return MrCheck::kOk;
  const Entry* e = region_by_lkey(sge.lkey);
  if (!e) return MrCheck::kBadKey;
  const ibv_mr& mr = e->mr;
  if (mr.pd != pd) return MrCheck::kWrongPd;
  if (sge.addr < mr.addr || sge.length > mr.length || sge.addr - mr.addr > mr.length - sge.length)
    return MrCheck::kOutOfBounds;
  if ((mr.access & access) != access) return MrCheck::kNoAccess;
  return MrCheck::kOk;
}

}  // namespace ibfsim
