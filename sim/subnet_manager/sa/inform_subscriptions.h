// The SA's event subscriptions (IBA Vol1 13.4.8.3, OpenSM's osm_sa_informinfo.c): what a
// SubnAdmSet(InformInfo) does, as a pure function of the request and the subscriptions kept.
//   * Subscribe=1 adds the subscription of the requesting port (its LID, the SL the request came
//     on, the InformInfo without Subscribe), once: the same one again changes nothing.
//   * Subscribe=0 removes the requester's subscription with the same fields; there being none is
//     ERR_REQ_INVALID (as OpenSM answers).
//   * An InformInfo the SA does not take (inform_info_valid, or Subscribe neither 0 nor 1) is
//     ERR_REQ_INVALID; any method but Set is unsupported (OpenSM: no Get of InformInfo).
//   * The answer is SubnAdmGetResp(InformInfo) echoing the request's InformInfo.
#pragma once
#include <cstdint>
#include <vector>

#include "sim/core/ids.h"
#include "sim/subnet_manager/sa/inform_info.h"
#include "sim/subnet_manager/sa/sa_mad.h"

namespace ibfsim {

struct Subscription {
  Lid subscriber = 0;  // the LID the SubnAdmSet came from: where Reports go
  std::uint8_t sl = 0;
  InformInfo info;     // Subscribe set
};

class InformSubscriptions {
 public:
  // The answer to a SubnAdmSet (or other method) of InformInfo from `requester` on `sl`.
  SaMad set(const SaMad& request, Lid requester, std::uint8_t sl);
  // The subscriptions that want `n` from the port with GID `issuer_gid`, in the order made.
  std::vector<Subscription> matching(const Notice& n, const Gid& issuer_gid) const;
  const std::vector<Subscription>& all() const { return subs_; }

 private:
  std::vector<Subscription> subs_;
};

}  // namespace ibfsim
