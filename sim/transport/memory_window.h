// Memory windows (IBA Vol1 10.6.7, libibverbs ibv_alloc_mw / ibv_bind_mw): a window is an entry
// of the HCA's protection table (memory_region.h) with an R_Key of its own that, once bound,
// gives remote access to [addr, addr + length) of one region with the window's access rights.
//   - Type 1 belongs to its PD: bound (and rebound, or unbound with length 0) by ibv_bind_mw,
//     which posts the bind on a QP with the next key byte (ibv_inc_rkey); any QP of the PD reaches
//     it. It cannot be invalidated (o10-37.2.26), only unbound or deallocated.
//   - Type 2 (2B) is bound by an IBV_WR_BIND_MW work request, with a key byte the consumer chooses,
//     only while free (o10-37.2.30), and is then reached only through the QP that bound it; it
//     returns to free with IBV_WR_LOCAL_INV, a SEND with Invalidate naming its R_Key (through that
//     QP) or ibv_dealloc_mw.
// A bind is checked as the spec says: the QP, the window and the region in one PD (C10-72), the
// region registered with IBV_ACCESS_MW_BIND (C10-73) and with local write if the window grants
// remote write or atomics (C10-74), the window inside the region (C10-75), a type 2 window's length
// not 0 (o10-37.2.40). Zero-based windows (IBV_ACCESS_ZERO_BASED) are not modelled and refused.
// Pure rules over plain data; the table applies them.
#pragma once
#include <cstdint>

#include "sim/core/ids.h"
#include "sim/transport/memory_key.h"
#include "sim/transport/verbs.h"

namespace ibfsim {

// Why a bind or an invalidation was refused (kOk: done). Every refusal of a bind work request
// completes it with IBV_WC_MW_BIND_ERR; of a local invalidation, IBV_WC_LOC_QP_OP_ERR.
enum class MwResult : std::uint8_t {
  kOk,
  kNoWindow,         // no window has this handle, or the new R_Key's index is not the window's
  kWrongPd,          // the QP's, window's or region's PD differ (C10-72)
  kNotFree,          // a type 2 window bound already (o10-37.2.30)
  kZeroLength,       // a type 2 bind of length 0 (o10-37.2.40)
  kBadAccessFlags,   // flags beyond remote read, write, atomic (zero-based: not modelled)
  kNoRegion,         // no region has the bind's L_Key
  kNoBindAccess,     // the region lacks IBV_ACCESS_MW_BIND (C10-73)
  kNeedsLocalWrite,  // remote write or atomic through a region without local write (C10-74)
  kOutsideRegion,    // the window does not lie inside the region (C10-75)
  kBadKey,           // invalidation: no bound window has this R_Key
  kType1,            // invalidation of a type 1 window (o10-37.2.26)
  kWrongQp,          // a SEND with Invalidate through a QP the type 2 window is not bound to
  kRegionKey,        // invalidation of a region's key (only fast-registered regions may be: not modelled)
};
const char* mw_result_name(MwResult r);

struct MemoryWindow {
  verbs::ibv_mw_type type = verbs::IBV_MW_TYPE_1;
  verbs::PdHandle pd = 0;
  std::uint32_t rkey = 0;
  bool bound = false;          // type 1: bound to a region with length > 0; type 2: valid (not free)
  std::uint32_t region = 0;    // the protection-table index of the region it is bound to
  std::uint64_t addr = 0, length = 0;
  unsigned access = 0;         // IBV_ACCESS_REMOTE_*
  Qpn qp = 0;                  // type 2: the QP it is bound to
};

// What a bind work request asks (IBV_WR_BIND_MW, or ibv_bind_mw's posted request).
struct MwBindRequest {
  std::uint32_t new_rkey = 0;
  verbs::ibv_mw_bind_info info;
  verbs::PdHandle qp_pd = 0;
  Qpn qpn = 0;
};

// The checks of binding `w` (protection-table index `w_index`, whose key index in the table's key
// mode is `w_key_index`) to `region` (nullptr: no region has the request's L_Key).
MwResult check_bind(const MemoryWindow& w, std::uint32_t w_key_index, const verbs::ibv_mr* region,
                    const MwBindRequest& b);
// Remote access by R_Key `rkey` through QP `qpn` (of PD `pd`) to [va, va+len) needing `access`.
MrCheck check_window_access(const MemoryWindow& w, std::uint32_t rkey, verbs::PdHandle pd, Qpn qpn,
                            std::uint64_t va, std::uint64_t len, unsigned access);
// Invalidation of `rkey` (the window's, checked by the caller) from QP `qpn` of PD `pd`: local
// (IBV_WR_LOCAL_INV) or remote (a SEND with Invalidate arriving on that QP).
MwResult check_invalidate(const MemoryWindow& w, std::uint32_t rkey, verbs::PdHandle pd, Qpn qpn, bool remote);

}  // namespace ibfsim
