#include "sim/transport/memory_window.h"

namespace ibfsim {

using namespace verbs;

const char* mw_result_name(MwResult r) {
  switch (r) {
    case MwResult::kOk: return "ok";
    case MwResult::kNoWindow: return "no_window";
    case MwResult::kWrongPd: return "wrong_pd";
    case MwResult::kNotFree: return "not_free";
    case MwResult::kZeroLength: return "zero_length";
    case MwResult::kBadAccessFlags: return "bad_access_flags";
    case MwResult::kNoRegion: return "no_region";
    case MwResult::kNoBindAccess: return "no_bind_access";
    case MwResult::kNeedsLocalWrite: return "needs_local_write";
    case MwResult::kOutsideRegion: return "outside_region";
    case MwResult::kBadKey: return "bad_key";
    case MwResult::kType1: return "type_1";
    case MwResult::kWrongQp: return "wrong_qp";
    case MwResult::kRegionKey: return "region_key";
  }
  return "?";
}

MwResult check_bind(const MemoryWindow& w, std::uint32_t w_key_index, const ibv_mr* region, const MwBindRequest& b) {
  if (key_index(b.new_rkey) != w_key_index) return MwResult::kNoWindow;
  if (b.qp_pd != w.pd) return MwResult::kWrongPd;
  const unsigned remote = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC;
  if (b.info.mw_access_flags & ~remote) return MwResult::kBadAccessFlags;
  if (w.type == IBV_MW_TYPE_2) {
    if (w.bound) return MwResult::kNotFree;
    if (b.info.length == 0) return MwResult::kZeroLength;
  } else if (b.info.length == 0) {
    return MwResult::kOk;  // type 1: unbinds; no region needed
  }
  if (region == nullptr) return MwResult::kNoRegion;
  if (region->pd != w.pd) return MwResult::kWrongPd;
  if (!(region->access & IBV_ACCESS_MW_BIND)) return MwResult::kNoBindAccess;
  if ((b.info.mw_access_flags & (IBV_ACCESS_REMOTE_WRITE | IBV_ACCESS_REMOTE_ATOMIC)) &&
      !(region->access & IBV_ACCESS_LOCAL_WRITE))
    return MwResult::kNeedsLocalWrite;
  if (b.info.addr < region->addr || b.info.length > region->length ||
      b.info.addr - region->addr > region->length - b.info.length)
    return MwResult::kOutsideRegion;
  return MwResult::kOk;
}

MrCheck check_window_access(const MemoryWindow& w, std::uint32_t rkey, PdHandle pd, Qpn qpn, std::uint64_t va,
                            std::uint64_t len, unsigned access) {
  if (!w.bound || w.rkey != rkey) return MrCheck::kBadKey;
  if (w.pd != pd) return MrCheck::kWrongPd;
  if (w.type == IBV_MW_TYPE_2 && w.qp != qpn) return MrCheck::kWrongQp;
  if (va < w.addr || len > w.length || va - w.addr > w.length - len) return MrCheck::kOutOfBounds;
  if ((w.access & access) != access) return MrCheck::kNoAccess;
  return MrCheck::kOk;
}

MwResult check_invalidate(const MemoryWindow& w, std::uint32_t rkey, PdHandle pd, Qpn qpn, bool remote) {
  if (!w.bound || w.rkey != rkey) return MwResult::kBadKey;
  if (w.type == IBV_MW_TYPE_1) return MwResult::kType1;
  if (w.pd != pd) return MwResult::kWrongPd;
  if (remote && w.qp != qpn) return MwResult::kWrongQp;
  return MwResult::kOk;
}

}  // namespace ibfsim
