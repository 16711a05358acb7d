// Memory windows in the protection table (memory_window.h, memory_region.h), without a fabric:
// each rule of a bind, an access through a window and an invalidation, the keys a window gets,
// and deregistering a region with windows bound to it.
#include <catch2/catch.hpp>

#include <cerrno>
#include <set>

#include "sim/transport/memory_region.h"

using namespace ibfsim;
using namespace ibfsim::verbs;

namespace {

constexpr unsigned kRegionAccess = IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_MW_BIND;
constexpr Qpn kQp = 0x104, kOtherQp = 0x105;

MwBindRequest bind_req(const ibv_mw& mw, const ibv_mr& mr, std::uint64_t addr, std::uint64_t len, unsigned access,
                       PdHandle qp_pd = 1, Qpn qpn = kQp) {
  MwBindRequest b;
  b.new_rkey = ibv_inc_rkey(mw.rkey);
  b.info.mr = mr;
  b.info.addr = addr;
  b.info.length = len;
  b.info.mw_access_flags = access;
  b.qp_pd = qp_pd;
  b.qpn = qpn;
  return b;
}

}  // namespace

TEST_CASE("a memory window's R_Key: a table index of its own, the key byte the bind names, nothing is reachable "
          "before the bind",
          "[transport][mw]") {
  MrTable t;
  const ibv_mr mr = *t.reg(1, 0x10000, 0x1000, kRegionAccess);
  const ibv_mw w1 = *t.alloc_mw(1, IBV_MW_TYPE_1);
  const ibv_mw w2 = *t.alloc_mw(1, IBV_MW_TYPE_2);
  CHECK(w1.rkey == (1u << 8 | 0xA5));  // sequential: index 1 (the region has 0), the fixed byte
  CHECK(w2.rkey == (2u << 8 | 0xA5));
  CHECK(w1.handle == 1);
  CHECK(w2.handle == 2);
  CHECK(t.check_remote(w2.rkey, 1, kQp, 0x10000, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kBadKey);
  // The region itself grants no remote access: its R_Key reaches nothing.
  CHECK(t.check_remote(mr.rkey, 1, kQp, 0x10000, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kNoAccess);
  const auto b = bind_req(w2, mr, 0x10100, 0x200, IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE);
  REQUIRE(t.bind_mw(w2.handle, b) == MwResult::kOk);
  CHECK(b.new_rkey == (2u << 8 | 0xA6));
  CHECK(t.window(w2.handle)->rkey == b.new_rkey);
  CHECK(t.bound_windows(mr.lkey) == 1);
  // Through the window: inside it, with its rights, through the QP that bound it.
  CHECK(t.check_remote(b.new_rkey, 1, kQp, 0x10100, 0x200, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
  CHECK(t.check_remote(b.new_rkey, 1, kQp, 0x100FF, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kOutOfBounds);
  CHECK(t.check_remote(b.new_rkey, 1, kQp, 0x102F9, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kOutOfBounds);
  CHECK(t.check_remote(b.new_rkey, 1, kQp, 0x10100, 8, IBV_ACCESS_REMOTE_ATOMIC) == MrCheck::kNoAccess);
  CHECK(t.check_remote(b.new_rkey, 1, kOtherQp, 0x10100, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kWrongQp);
  CHECK(t.check_remote(b.new_rkey, 2, kQp, 0x10100, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kWrongPd);
  CHECK(t.check_remote(w2.rkey, 1, kQp, 0x10100, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kBadKey);  // the old byte
}

TEST_CASE("binding a window: every rule of the spec refuses what it forbids, and a refused bind changes nothing",
          "[transport][mw]") {
  MrTable t;
  const ibv_mr mr = *t.reg(1, 0x10000, 0x1000, kRegionAccess);
  const ibv_mr no_bind = *t.reg(1, 0x20000, 0x1000, IBV_ACCESS_LOCAL_WRITE);
  const ibv_mr read_only = *t.reg(1, 0x30000, 0x1000, IBV_ACCESS_MW_BIND);
  const ibv_mr other_pd = *t.reg(2, 0x40000, 0x1000, kRegionAccess);
  const ibv_mw w = *t.alloc_mw(1, IBV_MW_TYPE_2);
  const unsigned rw = IBV_ACCESS_REMOTE_READ | IBV_ACCESS_REMOTE_WRITE;
  auto bind = [&](MwBindRequest b) { return t.bind_mw(w.handle, b); };
  MwBindRequest b = bind_req(w, mr, 0x10000, 0x100, rw);
  b.new_rkey = make_memory_key(9, 0x11);  // another index than the window's
  CHECK(bind(b) == MwResult::kNoWindow);
  CHECK(t.bind_mw(77, bind_req(w, mr, 0x10000, 0x100, rw)) == MwResult::kNoWindow);
  CHECK(bind(bind_req(w, mr, 0x10000, 0x100, rw, 2)) == MwResult::kWrongPd);             // C10-72: the QP's PD
  CHECK(bind(bind_req(w, other_pd, 0x40000, 0x100, rw)) == MwResult::kWrongPd);          // the region's PD
  CHECK(bind(bind_req(w, no_bind, 0x20000, 0x100, rw)) == MwResult::kNoBindAccess);      // C10-73
  CHECK(bind(bind_req(w, read_only, 0x30000, 0x100, IBV_ACCESS_REMOTE_WRITE)) == MwResult::kNeedsLocalWrite);  // C10-74
  CHECK(bind(bind_req(w, read_only, 0x30000, 0x100, IBV_ACCESS_REMOTE_ATOMIC)) == MwResult::kNeedsLocalWrite);
  CHECK(bind(bind_req(w, mr, 0x0FFFF, 0x100, rw)) == MwResult::kOutsideRegion);          // C10-75
  CHECK(bind(bind_req(w, mr, 0x10F01, 0x100, rw)) == MwResult::kOutsideRegion);
  CHECK(bind(bind_req(w, mr, 0x10000, 0, rw)) == MwResult::kZeroLength);                 // o10-37.2.40
  CHECK(bind(bind_req(w, mr, 0x10000, 0x100, rw | IBV_ACCESS_ZERO_BASED)) == MwResult::kBadAccessFlags);
  ibv_mr unknown = mr;
  unknown.lkey = make_memory_key(30, 0x5A);
  CHECK(bind(bind_req(w, unknown, 0x10000, 0x100, rw)) == MwResult::kNoRegion);
  CHECK(t.window(w.handle)->bound == false);
  CHECK(t.mw_stats().bind_errors == 12);
  // A read-only window on a region without local write is allowed; then a second bind of the
  // bound type 2 window is refused (o10-37.2.30).
  REQUIRE(bind(bind_req(w, read_only, 0x30000, 0x1000, IBV_ACCESS_REMOTE_READ)) == MwResult::kOk);
  ibv_mw bound = w;
  bound.rkey = t.window(w.handle)->rkey;
  CHECK(bind(bind_req(bound, mr, 0x10000, 0x100, rw)) == MwResult::kNotFree);
  CHECK(t.mw_stats().binds == 1);
}

TEST_CASE("a type 1 window: rebound at will (each bind a new key byte), unbound with length 0, never invalidated",
          "[transport][mw]") {
  MrTable t;
  const ibv_mr a = *t.reg(1, 0x10000, 0x1000, kRegionAccess);
  const ibv_mr b = *t.reg(1, 0x20000, 0x1000, kRegionAccess);
  ibv_mw w = *t.alloc_mw(1, IBV_MW_TYPE_1);
  auto bind = [&](const ibv_mr& mr, std::uint64_t addr, std::uint64_t len) {
    const MwBindRequest r = bind_req(w, mr, addr, len, IBV_ACCESS_REMOTE_READ);
    const MwResult res = t.bind_mw(w.handle, r);
    if (res == MwResult::kOk) w.rkey = r.new_rkey;
    return res;
  };
  REQUIRE(bind(a, 0x10000, 0x100) == MwResult::kOk);
  const std::uint32_t first = w.rkey;
  CHECK(t.check_remote(first, 1, kOtherQp, 0x10000, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kOk);  // any QP of the PD
  REQUIRE(bind(b, 0x20800, 0x100) == MwResult::kOk);  // rebound elsewhere
  CHECK(key_byte(w.rkey) == key_byte(first) + 1);
  CHECK(t.bound_windows(a.lkey) == 0);
  CHECK(t.bound_windows(b.lkey) == 1);
  CHECK(t.check_remote(first, 1, kQp, 0x10000, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kBadKey);
  CHECK(t.check_remote(w.rkey, 1, kQp, 0x20800, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kOk);
  // o10-37.2.26: no invalidation of a type 1 window, locally or by a SEND with Invalidate.
  CHECK(t.invalidate(w.rkey, 1, kQp, false) == MwResult::kType1);
  CHECK(t.invalidate(w.rkey, 1, kQp, true) == MwResult::kType1);
  CHECK(t.check_remote(w.rkey, 1, kQp, 0x20800, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kOk);
  // Length 0 unbinds (no region needed).
  REQUIRE(bind(ibv_mr{}, 0, 0) == MwResult::kOk);
  CHECK(t.bound_windows(b.lkey) == 0);
  CHECK(t.check_remote(w.rkey, 1, kQp, 0x20800, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kBadKey);
}

TEST_CASE("invalidating a type 2 window: locally in its PD, remotely only through the QP it is bound to, then free "
          "to bind again with a new key byte",
          "[transport][mw]") {
  MrTable t;
  const ibv_mr mr = *t.reg(1, 0x10000, 0x1000, kRegionAccess | IBV_ACCESS_REMOTE_READ);
  const ibv_mw w = *t.alloc_mw(1, IBV_MW_TYPE_2);
  const MwBindRequest b = bind_req(w, mr, 0x10000, 0x1000, IBV_ACCESS_REMOTE_WRITE);
  REQUIRE(t.bind_mw(w.handle, b) == MwResult::kOk);
  CHECK(t.invalidate(b.new_rkey, 1, kOtherQp, true) == MwResult::kWrongQp);
  CHECK(t.invalidate(b.new_rkey, 2, kQp, false) == MwResult::kWrongPd);
  CHECK(t.invalidate(w.rkey, 1, kQp, true) == MwResult::kBadKey);        // the key before the bind
  CHECK(t.invalidate(mr.rkey, 1, kQp, true) == MwResult::kRegionKey);    // a region's R_Key
  CHECK(t.invalidate(make_memory_key(40, 1), 1, kQp, true) == MwResult::kBadKey);
  CHECK(t.check_remote(b.new_rkey, 1, kQp, 0x10000, 8, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kOk);
  // ibv_dereg_mr fails while the window is bound.
  CHECK(t.dereg(mr.lkey) == EBUSY);
  REQUIRE(t.invalidate(b.new_rkey, 1, kQp, true) == MwResult::kOk);
  CHECK(t.mw_stats().remote_invalidations == 1);
  CHECK(t.mw_stats().invalidation_errors == 5);
  CHECK(t.check_remote(b.new_rkey, 1, kQp, 0x10000, 8, IBV_ACCESS_REMOTE_WRITE) == MrCheck::kBadKey);
  CHECK(t.invalidate(b.new_rkey, 1, kQp, true) == MwResult::kBadKey);  // once only
  // Free again: bound anew (another QP may bind it) with the next key byte.
  ibv_mw now = w;
  now.rkey = b.new_rkey;
  const MwBindRequest again = bind_req(now, mr, 0x10800, 0x100, IBV_ACCESS_REMOTE_READ, 1, kOtherQp);
  REQUIRE(t.bind_mw(w.handle, again) == MwResult::kOk);
  CHECK(key_byte(again.new_rkey) == key_byte(b.new_rkey) + 1);
  CHECK(t.check_remote(again.new_rkey, 1, kOtherQp, 0x10800, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kOk);
  CHECK(t.check_remote(b.new_rkey, 1, kOtherQp, 0x10800, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kBadKey);
  // Deallocated: unbound, so the region may go.
  CHECK(t.dealloc_mw(w.handle) == 0);
  CHECK(t.dealloc_mw(w.handle) == EINVAL);
  CHECK(t.check_remote(again.new_rkey, 1, kOtherQp, 0x10800, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kBadKey);
  CHECK(t.dereg(mr.lkey) == 0);
}

TEST_CASE("windows with key_byte and random keys: a random key byte, binds keep the window's 24 upper bits, and "
          "region keys never share them",
          "[transport][mw]") {
  for (MemoryKeyMode mode : {MemoryKeyMode::kKeyByte, MemoryKeyMode::kRandom}) {
    INFO(memory_key_mode_name(mode));
    MrTable t;
    t.set_key_mode(mode, RngStream(5, kMemoryKeyStream));
    std::vector<ibv_mw> ws;
    std::vector<ibv_mr> mrs;
    for (int i = 0; i < 32; ++i) {
      mrs.push_back(*t.reg(1, 0x100000 * (i + 1), 0x1000, kRegionAccess));
      ws.push_back(*t.alloc_mw(1, IBV_MW_TYPE_2));
    }
    std::set<std::uint32_t> prefixes;
    for (const ibv_mw& w : ws) prefixes.insert(key_index(w.rkey));
    CHECK(prefixes.size() == 32);
    for (const ibv_mr& mr : mrs) {
      CHECK(prefixes.count(key_index(mr.lkey)) == 0);
      CHECK(prefixes.count(key_index(mr.rkey)) == 0);
    }
    if (mode == MemoryKeyMode::kKeyByte)
      for (std::size_t i = 0; i < ws.size(); ++i) CHECK(key_index(ws[i].rkey) == 2 * i + 1);
    // Bind window 7 with a key byte of the consumer's choosing, over region 7.
    MwBindRequest b = bind_req(ws[7], mrs[7], mrs[7].addr, 0x100, IBV_ACCESS_REMOTE_READ);
    b.new_rkey = make_memory_key(key_index(ws[7].rkey), 0x3C);
    REQUIRE(t.bind_mw(ws[7].handle, b) == MwResult::kOk);
    CHECK(t.check_remote(b.new_rkey, 1, kQp, mrs[7].addr, 8, IBV_ACCESS_REMOTE_READ) == MrCheck::kOk);
    CHECK(t.check_remote(make_memory_key(key_index(ws[7].rkey), 0x3D), 1, kQp, mrs[7].addr, 8,
                         IBV_ACCESS_REMOTE_READ) == MrCheck::kBadKey);
    // Another window's index in the new key: refused.
    MwBindRequest wrong = bind_req(ws[8], mrs[8], mrs[8].addr, 0x100, IBV_ACCESS_REMOTE_READ);
    wrong.new_rkey = make_memory_key(key_index(ws[9].rkey), 0x3C);
    CHECK(t.bind_mw(ws[8].handle, wrong) == MwResult::kNoWindow);
  }
}
