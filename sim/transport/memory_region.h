// The HCA's protection table (IBA Vol1 10.6): memory regions and memory windows (memory_window.h),
// each an entry whose index is the 24-bit index of its keys (memory_key.h). A region belongs to a
// protection domain, covers [addr, addr+length) of host memory and grants access flags; its L_Key
// serves local work requests, its R_Key remote RDMA and atomics. A window's R_Key reaches the
// part of a region it is bound to.
//
// Keys follow the table's MemoryKeyMode (memory_key.h): sequential (index << 8 | a fixed byte),
// key_byte (index << 8 | a byte drawn from the run's seed) or random (32 random bits). A region
// keeps its index for life; reregistering it (ibv_rereg_mr: a deregistration and a registration
// in one, the index reused) gives it new key bytes (random: new keys), so its old keys stop
// working. Entries are never reused: a deregistered region's or deallocated window's index names
// nothing for the rest of the run.
#pragma once
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

#include "sim/core/rng.h"
#include "sim/transport/memory_key.h"
#include "sim/transport/memory_window.h"
#include "sim/transport/verbs.h"

namespace ibfsim {

// What happened to the table's windows.
struct MwStats {
  std::uint64_t binds = 0, bind_errors = 0;                   // bind work requests executed, refused
  std::uint64_t local_invalidations = 0, remote_invalidations = 0;  // IBV_WR_LOCAL_INV, SEND with Invalidate
  std::uint64_t invalidation_errors = 0;                      // refused (either kind)
};

class MrTable {
 public:
  // From now on, keys are made as `mode` says, their random bits from `rng` (unused when sequential).
  void set_key_mode(MemoryKeyMode mode, RngStream rng);
  void use_random_keys(RngStream rng) { set_key_mode(MemoryKeyMode::kRandom, rng); }
  MemoryKeyMode key_mode() const { return mode_; }

  // Registers a region; remote write or atomic access requires local write (as in libibverbs:
  // EINVAL otherwise, reported here as nullopt); nullopt too when the table is full (2^24 entries).
  std::optional<verbs::ibv_mr> reg(verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length, unsigned access);
  // ibv_rereg_mr of the region `mr` names (by its L_Key): `flags` says which of pd, [addr, length)
  // and access change. 0 and `mr` updated (new keys, and the changes), or IBV_REREG_MR_ERR_INPUT
  // with nothing changed: unknown region, no or unknown flag, remote write or atomic without local
  // write, or windows bound to it (a deregistration would fail).
  int rereg(verbs::ibv_mr& mr, unsigned flags, verbs::PdHandle pd, std::uint64_t addr, std::uint64_t length,
            unsigned access);
  // ibv_dereg_mr: 0, EINVAL (no region has this L_Key) or EBUSY (windows are bound to it: libibverbs'
  // ibv_dereg_mr fails while a window is bound).
  int dereg(std::uint32_t lkey);
  // The windows bound to the region with L_Key `lkey` (0 if none, or no such region).
  std::uint32_t bound_windows(std::uint32_t lkey) const;

  // ibv_alloc_mw: a window, not bound; nullopt when the table is full.
  std::optional<verbs::ibv_mw> alloc_mw(verbs::PdHandle pd, verbs::ibv_mw_type type);
  // ibv_dealloc_mw: unbinds it if bound. 0, or EINVAL (no such window).
  int dealloc_mw(verbs::MwHandle h);
  // Window `h`, or nullptr.
  const MemoryWindow* window(verbs::MwHandle h) const;
  // Executes a bind of window `h` (IBV_WR_BIND_MW) as `b` asks; kOk when bound (or, type 1 with
  // length 0, unbound).
  MwResult bind_mw(verbs::MwHandle h, const MwBindRequest& b);
  // Invalidates the window whose R_Key is `rkey` (type 2: back to free), locally (IBV_WR_LOCAL_INV
  // on a QP of PD `pd`) or remotely (a SEND with Invalidate arriving on QP `qpn` of PD `pd`).
  MwResult invalidate(std::uint32_t rkey, verbs::PdHandle pd, Qpn qpn, bool remote);
  const MwStats& mw_stats() const { return mw_stats_; }

  // Remote access by R_Key through QP `qpn` of PD `pd` to [va, va+len) needing `access` (an
  // IBV_ACCESS_REMOTE_* flag), to a region or a window. A zero-length access checks nothing (the
  // spec lets a zero-length RDMA carry any R_Key).
  MrCheck check_remote(std::uint32_t rkey, verbs::PdHandle pd, Qpn qpn, std::uint64_t va, std::uint64_t len,
                       unsigned access) const;
  // Whether `rkey` names a live memory window (which a SEND with Invalidate may take away before a
  // later request runs: rc_out_of_order.cpp places nothing early through one).
  bool names_window(std::uint32_t rkey) const;
  // A local scatter/gather element; `access` is IBV_ACCESS_LOCAL_WRITE when the HCA writes it.
  MrCheck check_local(const verbs::ibv_sge& sge, verbs::PdHandle pd, unsigned access) const;

 private:
  struct Entry {
    enum Kind : std::uint8_t { kFree, kRegion, kWindow } kind = kFree;
    verbs::ibv_mr mr;          // kRegion
    std::uint32_t windows = 0;  // kRegion: windows bound to it
    MemoryWindow mw;           // kWindow
  };
  // The entry a key names (its index; random keys: the map's), live, or nullptr. The caller
  // compares the whole key.
  const Entry* find(std::uint32_t key) const;
  Entry* find(std::uint32_t key) { return const_cast<Entry*>(static_cast<const MrTable*>(this)->find(key)); }
  const Entry* region_by_lkey(std::uint32_t lkey) const;
  // A new region's keys for entry `index`: lkey and rkey; `old` (rereg) are the keys they replace.
  void make_region_keys(std::uint32_t index, verbs::ibv_mr& mr, const verbs::ibv_mr* old);
  std::uint8_t draw_key_byte(std::uint32_t index, std::optional<std::uint8_t> other_than);
  std::uint32_t random_key();
  std::uint32_t random_window_prefix();
  void forget_region_keys(const verbs::ibv_mr& mr);
  void unbind(MemoryWindow& w);
  std::uint32_t window_key_index(const MemoryWindow& w) const { return key_index(w.rkey); }

  MemoryKeyMode mode_ = MemoryKeyMode::kSequential;
  std::vector<Entry> entries_;  // index = the keys' index (random keys: the maps')
  std::optional<RngStream> rng_;
  // Random keys: region keys (L_Key and R_Key) -> index; a window's 24 upper bits -> index (its
  // key byte changes with binds); how many live region keys have each 24 upper bits (a window's
  // must be none's).
  std::unordered_map<std::uint32_t, std::uint32_t> by_key_, by_prefix_;
  std::unordered_map<std::uint32_t, std::uint32_t> region_prefixes_;
  MwStats mw_stats_;
};

}  // namespace ibfsim
