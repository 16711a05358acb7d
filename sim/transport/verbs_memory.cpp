// The memory verbs of an HCA beyond ibv_reg_mr (verbs_resources.h): reregistering and
// deregistering regions, and memory windows (memory_window.h). ibv_bind_mw of a type 1 window is
// what libibverbs makes of it: a bind work request posted on the QP with the window's next key
// byte (ibv_inc_rkey), the window's R_Key updated at once in the caller's ibv_mw.
#include <cerrno>

#include "sim/transport/hca.h"
#include "sim/transport/verbs_resources.h"

namespace ibfsim {

using namespace verbs;

int VerbsResources::rereg_mr(ibv_mr& mr, unsigned flags, PdHandle pd, std::uint64_t addr, std::uint64_t length,
                             unsigned access) {
  if ((flags & IBV_REREG_MR_CHANGE_PD) && (pd == 0 || pd > pds_)) return IBV_REREG_MR_ERR_INPUT;
  if ((flags & IBV_REREG_MR_CHANGE_TRANSLATION) && !memory_.contains(addr, length)) return IBV_REREG_MR_ERR_INPUT;
  return mrs_.rereg(mr, flags, pd, addr, length, access);
}

std::optional<ibv_mw> VerbsResources::alloc_mw(PdHandle pd, ibv_mw_type type) {
  if (pd == 0 || pd > pds_ || (type != IBV_MW_TYPE_1 && type != IBV_MW_TYPE_2)) return std::nullopt;
  return mrs_.alloc_mw(pd, type);
}

int VerbsResources::bind_mw(QueuePair& q, ibv_mw& mw, const ibv_mw_bind& bind) {
  const ibv_mw_bind_info& info = bind.bind_info;
  // ibv_bind_mw's own checks, before anything is posted.
  if (mw.type != IBV_MW_TYPE_1) return EINVAL;                   // type 2: post IBV_WR_BIND_MW
  if (info.length > 0 && info.mr.pd != mw.pd) return EPERM;
  if (info.mw_access_flags & IBV_ACCESS_ZERO_BASED) return EINVAL;  // a zero-based type 1 window
  ibv_send_wr wr;
  wr.wr_id = bind.wr_id;
  wr.opcode = IBV_WR_BIND_MW;
  wr.send_flags = bind.send_flags;
  wr.bind_mw.mw = mw.handle;
  wr.bind_mw.rkey = ibv_inc_rkey(mw.rkey);
  wr.bind_mw.bind_info = info;
  const int rc = post_send(q, wr);
  if (rc == 0) mw.rkey = wr.bind_mw.rkey;
  return rc;
}

}  // namespace ibfsim
